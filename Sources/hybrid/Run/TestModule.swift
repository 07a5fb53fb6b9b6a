import Foundation
import HybridCore

/// `test`: the module of `hybrid run`'s test-runner mode. A page calls
/// `hybrid.call('test', 'done', { ok, details })` and the run ends with exit 0 (ok) or 1.
/// `screenshot` writes `--screenshot` now, `log` prints with `--verbose`, and `crash` kills the
/// page's web content process (shortly after answering), so a page can test how it comes back
/// from a white screen: the container reloads it once; a second crash soon after is
/// unrecoverable (exit 2).
struct TestModule: BridgeModule {
    struct Done: Codable, Sendable {
        var ok: Bool
        var details: JSONValue?
    }
    struct Log: Codable, Sendable {
        var level: String?
        var message: String
    }

    let name = "test"
    let allowedOrigins: [OriginPattern]
    let onDone: @MainActor @Sendable (Done) -> Void
    let onScreenshot: @MainActor @Sendable () async throws -> String?
    let onLog: @MainActor @Sendable (Log) -> Void
    let onCrash: @MainActor @Sendable () -> Void

    var actions: [BridgeAction] {
        [
            Action("done") { (done: Done, _) in
                await onDone(done)
                return BridgeEmpty()
            },
            Action("screenshot") { (_: Empty, _) in try await onScreenshot() },
            Action("crash") { (_: Empty, _) in
                await onCrash()
                return BridgeEmpty()
            },
            Action("log") { (log: Log, _) in
                await onLog(log)
                return BridgeEmpty()
            },
        ]
    }
}
