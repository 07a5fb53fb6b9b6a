import Foundation
import HybridEngine

/// Finds white screens that no engine event reports: a page whose main thread no longer
/// answers, and a page that went blank (its title gone where it had one, and no visible content).
///
/// Used when a container becomes visible again; a dead content process is reported by the
/// engine (``EngineEvent/contentProcessTerminated(_:)``) and needs no probe.
@MainActor
public struct WhiteScreenDetector {
    /// How long the liveness script may take (seconds).
    public var livenessTimeout: Double

    /// A detector whose probes give up after `livenessTimeout` seconds.
    public init(livenessTimeout: Double = 1.5) {
        self.livenessTimeout = livenessTimeout
    }

    /// The white screen `engine` shows, if any.
    /// - Parameter expectedTitle: the title the page had when it finished loading.
    public func probe(_ engine: any WebEngine, expectedTitle: String?) async -> WhiteScreenReason? {
        guard engine.isAlive else { return nil }
        guard await isResponsive(engine) else { return .unresponsive }
        guard let expectedTitle, !expectedTitle.isEmpty else { return nil }
        // The title comes from the page, not the engine's copy: that copy is updated by a
        // message of its own and can still show the old title just after a script cleared it.
        let content = await Self.withTimeout(livenessTimeout) { try? await engine.evaluate(ContainerScripts.contentProbe) }
        guard let object = (content ?? nil)?.objectValue else { return .unresponsive }
        let title = object["title"]?.stringValue ?? ""
        let elements = object["elements"]?.numberValue ?? 0
        let text = object["text"]?.numberValue ?? 0
        return title.isEmpty && elements == 0 && text == 0 ? .blankPage : nil
    }

    /// Whether a tiny script completes within ``livenessTimeout``.
    public func isResponsive(_ engine: any WebEngine) async -> Bool {
        let answer = await Self.withTimeout(livenessTimeout) { try? await engine.evaluate(ContainerScripts.liveness) }
        return (answer ?? nil) != nil
    }

    /// `body`'s result, or `nil` if it takes longer than `seconds`. The body is not awaited past
    /// the deadline (a hung page never answers; its call fails when the process goes).
    public static func withTimeout<T: Sendable>(_ seconds: Double, _ body: @escaping @MainActor () async -> T) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let once = ResumeOnce(continuation)
            Task { @MainActor in once.resume(await body()) }
            Task { @MainActor in
                try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
                once.resume(nil)
            }
        }
    }
}

/// Resumes a continuation with the first value offered.
@MainActor
private final class ResumeOnce<T: Sendable> {
    private var continuation: CheckedContinuation<T?, Never>?
    init(_ continuation: CheckedContinuation<T?, Never>) { self.continuation = continuation }
    func resume(_ value: T?) {
        continuation?.resume(returning: value)
        continuation = nil
    }
}
