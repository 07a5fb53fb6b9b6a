import Foundation
import HybridEngine

/// The container's one capture of what happens in the page (`hybrid-health.js`, ``HealthCapture``):
/// its script errors feed both boot health's trial and health recording, its timing the recording.
/// Boot health used to run a listener of its own in a world of its own (`hybridkit-boot`): every
/// package document paid for a second world and script. Now a package page runs one script.
extension HybridWebView {
    /// The capture's script and handler, when a recorder (`recording`) or a bound package (boot
    /// health) wants them; the script leaves the timing out without a recorder.
    static func pageCapture(recording: Bool, package: Bool, world: ScriptWorld,
                            slot: BridgeDelegateSlot<any BridgeAppHealthDelegate>) -> (script: UserScript, handler: ScriptMessageHandler)? {
        guard recording || package else { return nil }
        let handler = ScriptMessageHandler(name: HealthCapture.handlerName, world: world) { message in
            guard case .string(let text) = message.body, let parsed = HealthCapture.parse(text) else { return }
            (slot.delegate as? HybridWebView)?.pageCaptured(parsed)
        }
        return (HealthCapture.script(in: world, timing: recording), handler)
    }

    /// The capture posted `message`: the recorder takes all of it, boot health the uncaught errors
    /// (not rejections: an unhandled rejection does not fail a version on trial).
    func pageCaptured(_ message: HealthCapture.Message) {
        health?.pagePosted(message)
        // Only an error of a frame whose world says where it is (an opaque frame says nothing).
        if case .error(let report) = message, report.type == "error", let origin = report.origin {
            bootScriptError(report, page: origin)
        }
    }
}
