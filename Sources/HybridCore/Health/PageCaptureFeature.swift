import Foundation
import HybridEngine

/// The container's one capture of what happens in the page (`hybrid-health.js`, ``HealthCapture``):
/// its script errors feed both boot health's trial (``PackageLaunchFeature``) and health recording
/// (``ViewHealth``), its timing the recording; the view tells them as ``ViewEvent/pageCaptured(_:)``.
/// Installed when a recorder (``HybridWebViewConfiguration/health``) or a bound package wants it;
/// the script leaves the timing out without a recorder. Boot health used to run a listener of its
/// own in a world of its own (`hybridkit-boot`): every package document paid for a second world
/// and script. Now a package page runs one script.
@MainActor
final class PageCaptureFeature: ViewFeature {
    private let recording: Bool
    private let world: ScriptWorld
    private weak var view: HybridWebView?

    init(recording: Bool, world: ScriptWorld) {
        self.recording = recording
        self.world = world
    }

    func prepare(_ setup: inout ViewFeatureSetup) {
        setup.userScripts.append(HealthCapture.script(in: world, timing: recording))
        setup.messageHandlers.append(ScriptMessageHandler(name: HealthCapture.handlerName, world: world) { [weak self] message in
            guard case .string(let text) = message.body, let parsed = HealthCapture.parse(text) else { return }
            self?.view?.report(.pageCaptured(parsed))
        })
    }

    func attach(to view: HybridWebView) { self.view = view }
}
