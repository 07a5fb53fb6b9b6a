// The example of docs/apple.md, compiled on every Linux build as an app module of its own
// (against the WebKit/UIKit stand-ins), so the documented usage keeps compiling with exactly the
// imports an app writes.
import HybridCore
import HybridUIKit
import HybridWK
import UIKit

@MainActor
final class OrdersCoordinator {
    // One provider per app (or per login profile): views share its data store.
    let provider = WKEngineProvider(store: .shared)

    func showOrders(from navigation: UINavigationController) throws {
        var configuration = HybridWebViewConfiguration()
        configuration.modules.append(DeviceModule(appName: "Shop", allowedOrigins: ["https://m.example.com"]))   // what the page may call
        let screen = try HybridViewController(
            provider: provider, configuration: configuration,
            url: URL(string: "https://m.example.com/orders")!)
        screen.placeholderTitle = "Orders"
        navigation.pushViewController(screen, animated: true)
    }

    func embed(in container: UIView, configuration: HybridWebViewConfiguration) throws -> HybridWebView {
        let webView = try HybridWebView(provider: provider, configuration: configuration)
        if let engine = webView.engine as? WKWebEngine { container.addSubview(engine.webView) }
        webView.load(URL(string: "https://m.example.com/")!)
        return webView
    }
}
