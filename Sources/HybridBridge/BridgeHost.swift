import Foundation
import HybridEngine
import HybridBase

/// Glues a ``BridgeRouter`` to any ``WebEngine`` through the seam only.
///
/// Before the engine exists, ``configure(_:)`` adds the bridge's user scripts and message
/// handler to its ``EngineConfiguration``; after, ``attach(_:)`` observes it: a committed load
/// begins a new bridge document, a dead content process fails every pending call with
/// `engine_terminated`. Progress and events are evaluated into the transport's world, in order,
/// batched. The container's navigation delegate passes navigations to ``handleNavigation(_:)``
/// for `hybrid://` URLs (the legacy transport and URL-style calls).
@MainActor
public final class BridgeHost {
    /// Names and switches of the bridge's plumbing.
    public struct Options: Sendable, Equatable {
        /// The isolated world's name.
        public var worldName: String
        /// The message handler's name (`window.webkit.messageHandlers.<name>`).
        public var handlerName: String
        /// The scheme of URL-style calls and of the legacy transport's queue signal.
        public var urlScheme: String
        /// Use this transport instead of the best the engine allows (tests, old containers).
        public var transport: BridgeTransport?
        /// Route `scheme://module/action?…` navigations of the main frame into the modules.
        public var allowsURLCalls: Bool
        /// Carry large byte values through the byte channel where the engine has one
        /// (``EngineCapabilities/byteChannel``; `true` by default); `false` keeps every byte value
        /// in the message as base64.
        public var usesByteChannel = true

        /// Options with the defaults: world `hybridkit`, handler `hybrid`, scheme `hybrid`, the best transport.
        public init(worldName: String = "hybridkit", handlerName: String = "hybrid", urlScheme: String = "hybrid",
                    transport: BridgeTransport? = nil, allowsURLCalls: Bool = true) {
            self.worldName = worldName
            self.handlerName = handlerName
            self.urlScheme = urlScheme
            self.transport = transport
            self.allowsURLCalls = allowsURLCalls
        }
    }

    /// The router: register modules here, set its logger and limits, emit events.
    public let router: BridgeRouter
    /// The options the host was made with.
    public let options: Options
    /// The transport in use.
    public let transport: BridgeTransport
    /// The capabilities of the engine the host was made for.
    public let capabilities: EngineCapabilities
    /// The attached engine.
    public private(set) weak var engine: (any WebEngine)?
    /// The byte channel large byte values take instead of base64, where the engine declares
    /// ``EngineCapabilities/byteChannel`` and the transport is an isolated world; `nil` elsewhere.
    /// Its store is emptied when a new document commits and when the host detaches.
    public private(set) var byteChannel: BridgeByteChannel?
    private var observation: ObservationToken?
    /// The main frame's origin, kept from the engine's commit and URL events (parsing the URL
    /// on every message would cost more than routing it).
    private var origin: BridgeOrigin?
    /// The origin of the last committed document (the byte channel's caller).
    private var committedOrigin: BridgeOrigin?
    /// Text waiting to be evaluated into the page, per route, for one document.
    private var outbox: (transport: [String], urlQueue: [String]) = ([], [])
    private var outboxDocument: BridgeDocument?
    private var flushScheduled = false
    var nextURLCallID = 1 << 52

    /// Where an answer is evaluated.
    enum Route { case transport, urlQueue }

    /// A host for an engine with `capabilities`, with `modules` registered on a new router.
    /// The `hybrid` module (version, capabilities, module list) is added unless one is given.
    /// - Parameter byteChannelOrigin: Where the engine serves the byte channel
    ///   (``WebEngineProvider/byteChannelOrigin``); `nil`: at its custom scheme, which only an engine
    ///   with ``EngineCapabilities/customSchemeNavigation`` serves to `fetch`: elsewhere there is no
    ///   channel then, and byte values stay in the message as base64.
    public init(capabilities: EngineCapabilities, modules: [any BridgeModule] = [],
                limits: BridgeRouter.Limits = BridgeRouter.Limits(), options: Options = Options(),
                byteChannelOrigin: String? = nil) {
        let transport = options.transport ?? BridgeTransport.best(for: capabilities)
        self.transport = transport
        self.options = options
        self.capabilities = capabilities
        let nonceMode: BridgeRouter.NonceMode = transport == .url ? .none : transport.issuesNonce ? .issued : .announced
        router = BridgeRouter(modules: modules, limits: limits, nonceMode: nonceMode)
        router.capabilities = [
            "engine": .string(""),
            "transport": .string(transport.rawValue),
            "isolatedWorld": .bool(transport.world(named: options.worldName) != .page),
            "messageReplies": .bool(transport.usesReplies),
            "urlTransport": true,
            "binary": "base64",
        ]
        let reachable = byteChannelOrigin != nil || capabilities.contains(.customSchemeNavigation)
        if options.usesByteChannel, capabilities.contains(.byteChannel), reachable,
           transport == .isolatedReply || transport == .isolatedCallback {
            let store = BridgeByteStore(limits: .init(maxEntryBytes: limits.maxMessageBytes,
                                                      maxTotalBytes: max(64 << 20, 2 * limits.maxMessageBytes)))
            // The channel answers the origin of the document that committed last: the view's URL
            // changes as a navigation starts (WebKitGTK), while the leaving document still runs.
            byteChannel = BridgeByteChannel(store: store, endpoint: byteChannelOrigin,
                                            pageOrigins: modules.flatMap(\.allowedOrigins)) { [weak self] in
                self?.committedOrigin ?? self?.currentOrigin
            }
            router.byteBinding = .init(store: store, threshold: BridgeByteChannel.defaultThreshold,
                                       takesStreamedPosts: byteChannelOrigin != nil)
            router.capabilities = .object((router.capabilities.objectValue ?? [:]).merging(["binary": "channel"]) { $1 })
        }
        if !router.moduleNames.contains(HybridInfoModule.moduleName) {
            router.register(HybridInfoModule { [weak router] origin in router?.info(for: origin) ?? [:] })
        }
        router.outbound = { [weak self] text, document in
            // Progress for a call that came over the legacy transport still goes to the runtime
            // through the transport when there is one; the runtime matches it by id either way.
            self?.send(text, to: document, via: transport == .url ? .urlQueue : .transport)
        }
    }

    // MARK: Configuration

    /// The user scripts to create the engine with: the transport and the page runtime.
    public var userScripts: [UserScript] {
        let world = transport.world(named: options.worldName)
        var scripts: [UserScript] = []
        if transport != .url {
            scripts.append(UserScript(
                source: BridgeTransportScript.source(handlerName: options.handlerName, replies: transport.usesReplies,
                                                     issuedNonce: transport.issuesNonce),
                injectionTime: .documentStart, frames: .mainFrameOnly, world: world))
        }
        scripts.append(UserScript(
            source: BridgeTransportScript.runtime(transport: transport == .url ? "url" : "event", urlScheme: options.urlScheme,
                                                  maxMessageBytes: router.limits.maxMessageBytes,
                                                  byteChannel: byteChannel.map { ($0.baseURL, BridgeByteChannel.defaultThreshold) },
                                                  byteChannelReads: byteChannel?.readURL, byteChannelBlobs: byteChannel?.endpoint != nil),
            injectionTime: .documentStart, frames: .mainFrameOnly, world: .page))
        return scripts
    }

    /// The message handler to create the engine with (none for the legacy transport).
    public var messageHandlers: [ScriptMessageHandler] {
        let world = transport.world(named: options.worldName)
        switch transport {
        case .url:
            return []
        case .isolatedReply, .pageReply:
            return [ScriptMessageHandler(name: options.handlerName, world: world, answer: { [weak self] message in
                guard let self else { return .now(.json("null")) }
                return self.answer(message)
            })]
        case .isolatedCallback, .pageCallback:
            return [ScriptMessageHandler(name: options.handlerName, world: world) { [weak self] message in
                self?.receiveWithoutReply(message)
            }]
        }
    }

    /// Adds the bridge's scripts and handler to `configuration`.
    public func configure(_ configuration: inout EngineConfiguration) {
        configuration.userScripts.append(contentsOf: userScripts)
        configuration.messageHandlers.append(contentsOf: messageHandlers)
        if let byteChannel { configuration.schemeHandlers[BridgeByteChannel.scheme] = byteChannel }
    }

    // MARK: Engine

    /// Starts serving `engine` (created with ``configure(_:)``'s configuration).
    public func attach(_ engine: any WebEngine) {
        self.engine = engine
        var capabilities = router.capabilities.objectValue ?? [:]
        capabilities["engine"] = .string(engine.engineName)
        router.capabilities = .object(capabilities)
        observation = engine.observe { [weak self] event in self?.engineDidReport(event) }
    }

    /// Stops serving the engine: pending calls fail with `cancelled`, nothing more is evaluated.
    public func detach() {
        origin = nil
        byteChannel?.publishOrigin(nil)
        observation?.cancel()
        observation = nil
        router.failAll(.cancelled)
        router.endDocument()
        byteChannel?.store.removeAll()
        engine = nil
    }

    private func engineDidReport(_ event: EngineEvent) {
        switch event {
        case .loadCommitted(let url):
            origin = url.flatMap(BridgeOrigin.init(url:))
            committedOrigin = origin
            byteChannel?.publishOrigin(committedOrigin)
            byteChannel?.store.removeAll()
            let document = router.beginDocument()
            if let nonce = document.nonce, let engine {
                let script = BridgeTransportScript.issueNonce(nonce, info: router.info(for: currentOrigin))
                let world = transport.world(named: options.worldName)
                Task { _ = try? await engine.evaluate(script, in: world) }
            }
        case .urlChanged(let url):
            origin = url.flatMap(BridgeOrigin.init(url:))
        case .contentProcessTerminated(let reason):
            let failed = router.failAll(.engineTerminated(reason))
            router.endDocument()
            byteChannel?.store.removeAll()   // no page is left to fetch them
            router.logger?(BridgeLogEntry(level: .warning, code: "engine_terminated",
                                          message: "content process ended (\(reason)); \(failed) pending call(s) failed"))
        default:
            break
        }
    }

    /// The origin of the main frame's current document.
    public var currentOrigin: BridgeOrigin? {
        if let origin { return origin }
        origin = engine?.url.flatMap(BridgeOrigin.init(url:))
        return origin
    }

    /// Sends an event to the current document's `hybrid.on(name)` listeners.
    /// - Returns: `false` when no document is listening.
    @discardableResult
    public func emit<Payload: Encodable & Sendable>(_ name: String, _ payload: Payload) throws -> Bool {
        try router.emit(name, payload)
    }

    // MARK: Messages

    private func text(of message: ScriptMessage) -> String {
        switch message.body {
        case .string(let text): text
        case .json(let text): text
        }
    }

    private func answer(_ message: ScriptMessage) -> ScriptAnswer {
        router.answer(text(of: message), origin: currentOrigin)
    }

    private func receiveWithoutReply(_ message: ScriptMessage) {
        let text = text(of: message)
        let origin = currentOrigin
        Task {
            let response = await router.receive(text, origin: origin)
            if let reply = response.text, let document = router.document { send(reply, to: document, via: .transport) }
        }
    }

    /// Queues `text` for `document`; one evaluation per route carries everything queued in a turn.
    func send(_ text: String, to document: BridgeDocument, via route: Route) {
        if outboxDocument != document {
            outbox = ([], [])
            outboxDocument = document
        }
        switch route {
        case .transport: outbox.transport.append(text)
        case .urlQueue: outbox.urlQueue.append(text)
        }
        guard !flushScheduled else { return }
        flushScheduled = true
        Task { await flush() }
    }

    private func flush() async {
        flushScheduled = false
        let (transportTexts, urlTexts) = outbox
        outbox = ([], [])
        guard let engine, let document = outboxDocument, document == router.document else { return }
        var scripts: [(String, ScriptWorld)] = []
        if !transportTexts.isEmpty {
            scripts.append((BridgeTransportScript.deliver(transportTexts, nonce: document.nonce),
                            transport.world(named: options.worldName)))
        }
        if !urlTexts.isEmpty {
            let list = urlTexts.map(BridgeJSON.quote).joined(separator: ",")
            scripts.append(("window.__hybridkitURL && window.__hybridkitURL.deliver([\(list)]); void 0;", .page))
        }
        for (script, world) in scripts { _ = try? await engine.evaluate(script, in: world) }
    }
}
