import Foundation
import HybridNetwork
import HybridBridge
import HybridEngine

/// The view's side of the request proxy's documents (``ProxyDocumentTarget``): a proxied form
/// POST's response is shown in this view, and each main response's Content Security Policy is
/// kept for the requests the proxy carries for that document.
@MainActor
final class ProxyDocumentFeature: ViewFeature {
    private let documents: [ProxyDocumentTarget]

    init(_ modules: [any BridgeModule]) {
        documents = modules.compactMap { ($0 as? ProxyModule)?.documents }
    }

    func attach(to view: HybridWebView) {
        for target in documents { target.engine = view.engine }
    }

    func viewDidReport(_ event: ViewEvent) {
        guard case .navigationResponse(let response) = event else { return }
        for target in documents { target.mainResponseArrived(response) }
    }
}
