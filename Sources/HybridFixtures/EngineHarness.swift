import Foundation
import HybridCore
#if os(Linux)
import HybridGTK
#endif

/// Boots the real engine once per test process and hands out views.
///
/// The suite runs inside `GLibMainLoop.run` (see `hybrid-engine-tests`' main.swift), so the
/// MainActor is the main thread and GLib's loop drains it.
@MainActor
public enum EngineHarness {
    private static var sharedProvider: GTKEngineProvider?

    /// The shared provider (one web context and ephemeral session for the test process).
    public static func provider() throws -> GTKEngineProvider {
        if let sharedProvider { return sharedProvider }
        precondition(Thread.isMainThread, "run engine tests through hybrid-engine-tests (GLibMainLoop.run)")
        try GLibMainLoop.bootstrap()
        let provider = try GTKEngineProvider(session: .ephemeral)
        sharedProvider = provider
        return provider
    }

    /// A new provider with its own context and session (isolated cookies, processes).
    public static func isolatedProvider(session: EngineSessionKind = .ephemeral) throws -> GTKEngineProvider {
        _ = try provider()
        return try GTKEngineProvider(session: session)
    }

    /// A new view on the shared provider.
    public static func makeEngine(_ configuration: EngineConfiguration = EngineConfiguration()) throws -> GTKWebEngine {
        try provider().makeGTKEngine(configuration)
    }
}

/// A wait that did not end in time.
public struct TimeoutError: Error, CustomStringConvertible {
    /// What the test was waiting for.
    public let what: String
    /// How long it waited.
    public let seconds: Double
    /// `timed out after Ns waiting for WHAT`.
    public var description: String { "timed out after \(seconds)s waiting for \(what)" }
}
