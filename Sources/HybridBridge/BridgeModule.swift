import Foundation
import HybridBase

/// A native module the page can call: `hybrid.call(name, action, params)`.
///
/// A module is a declared table of actions, not a class whose methods are found by name at
/// run time. Register modules per container with ``BridgeRouter/register(_:)``.
///
/// ```swift
/// struct ClockModule: BridgeModule {
///     let name = "clock"
///     let allowedOrigins: [OriginPattern] = ["https://app.example.com"]
///     var actions: [BridgeAction] {
///         [Action("now") { (_: Empty, _) in Date().timeIntervalSince1970 }]
///     }
/// }
/// ```
public protocol BridgeModule: Sendable {
    /// The module's name (the `module` of a call). Lower-case by convention.
    var name: String { get }
    /// The origins whose main-frame documents may call this module. Empty = nobody (default deny).
    var allowedOrigins: [OriginPattern] { get }
    /// The module's actions. Names must be unique; a later duplicate replaces an earlier one.
    var actions: [BridgeAction] { get }
}

extension BridgeModule {
    /// Shorthand for ``BridgeAction`` inside a module's action table.
    public typealias Action = BridgeAction
    /// Shorthand for ``BridgeEmpty`` inside a module's action table.
    public typealias Empty = BridgeEmpty
}

/// What a handler knows about its call, and how it talks back while it runs.
public struct BridgeCallContext: Sendable {
    /// The page's id for this call (unique per document).
    public let callID: Int
    /// The module called.
    public let module: String
    /// The action called.
    public let action: String
    /// The caller's origin (the main frame's current document), when it has one.
    public let origin: BridgeOrigin?
    /// The modules this caller's origin may use, sorted.
    public let availableModules: [String]
    /// The caller's document (its generation in the router), so that a later call can be
    /// bound to the document that started an earlier one (a streamed request body's slices).
    /// `nil` for contexts made outside the router.
    package let document: Int?
    let progressSink: @MainActor @Sendable (String) -> Void
    /// The view's byte store: the call's result and progress, reported from any task or thread
    /// (a transfer's callbacks), carry large bytes through the byte channel. Bound only while they
    /// are encoded, never around the handler, so bytes a module encodes for its own use stay inline.
    var byteBinding: BridgeByteStore.Binding?

    /// A new byte feed in the view's byte store, for bytes this call streams to the page as they
    /// arrive (``BridgeByteFeed``): name its ``BridgeByteFeed/reference`` in a progress report or the
    /// reply, and the page gets a `ReadableStream` of the bytes in its place. `nil` when the view
    /// has no byte channel or its store is full: send the bytes in reports instead.
    public func openByteFeed() -> BridgeByteFeed? {
        try? byteBinding?.store.openFeed()
    }

    /// A sink in the view's byte store that a body the page posts to the byte channel streams into
    /// as it arrives (``BridgeByteSink``): name the reference in a progress report, and the page
    /// runtime gives the page a function there that posts a `Blob` to it. `nil` where the channel
    /// cannot take a post that way (no channel, a custom scheme, whose engine reads a post whole) or
    /// the store is full: ask for the bytes another way.
    public func openByteSink(_ sink: any BridgeByteSink) -> BridgeByteReference? {
        guard let byteBinding, byteBinding.takesStreamedPosts, let token = try? byteBinding.store.openSink(sink) else { return nil }
        return BridgeByteReference(.sink, token: token)
    }

    /// `value` as the page receives it: large bytes into the view's byte store when it has one.
    func encode<Value: Encodable>(_ value: Value) throws -> String {
        guard let byteBinding else { return try BridgeJSON.encode(value) }
        return try BridgeByteStore.$bound.withValue(byteBinding) { try BridgeJSON.encode(value) }
    }

    /// A context; the router makes one per call (tests may make their own).
    public init(
        callID: Int, module: String, action: String, origin: BridgeOrigin?, availableModules: [String] = [],
        progress: @escaping @MainActor @Sendable (String) -> Void = { _ in }
    ) {
        self.callID = callID
        self.module = module
        self.action = action
        self.origin = origin
        self.availableModules = availableModules
        self.document = nil
        self.progressSink = progress
    }

    /// A context bound to the router's document `document`.
    init(callID: Int, module: String, action: String, origin: BridgeOrigin?, availableModules: [String], document: Int,
         progress: @escaping @MainActor @Sendable (String) -> Void = { _ in }) {
        self.callID = callID
        self.module = module
        self.action = action
        self.origin = origin
        self.availableModules = availableModules
        self.document = document
        self.progressSink = progress
    }

    /// Reports progress to the page's `onProgress` callback. Delivered in order, before the reply.
    /// Values that cannot be encoded are dropped.
    public func progress<Value: Encodable & Sendable>(_ value: Value) async {
        guard !Task.isCancelled, let text = try? encode(value) else { return }
        await progressSink(text)
    }

    /// `true` once the page aborted the call, it timed out, or its document went away.
    public var isCancelled: Bool { Task.isCancelled }

    /// Throws ``BridgeFailure/cancelled`` when the call has been cancelled.
    public func checkCancellation() throws {
        if Task.isCancelled { throw BridgeFailure.cancelled }
    }
}
