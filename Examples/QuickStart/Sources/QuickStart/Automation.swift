import Foundation
import HybridCore
import HybridGTK
import HybridServer
import HybridWebDriver

/// The shop's debug-build WebDriver endpoint (docs/testing.md, "In an app"): a Selenium or
/// WebdriverIO suite drives the shop's own containers — its modules, package and cookie jar — at
/// the returned URL (token included). Release builds never call this; views made without
/// `allowsAutomation` are refused by the endpoint anyway.
@MainActor
func startAutomation(provider: any WebEngineProvider, configuration: HybridWebViewConfiguration,
                     port: Int = 4444) throws -> (server: LoopbackServer, endpoint: WebDriverEndpoint) {
    let server = try LoopbackServer(host: "127.0.0.1", port: port)   // loopback only
    let endpoint = WebDriverEndpoint(port: server.port) { _ in
        var automated = configuration
        automated.allowsAutomation = true                            // off by default
        return WebDriverSessionContent(view: try HybridWebView(provider: provider, configuration: automated))
    }
    server.route("/", deferred: { request, respond in
        let call = WebDriverRequest(method: request.method, path: request.path, host: request.headers["Host"],
                                    origin: request.headers["Origin"], body: request.body)
        Task { @MainActor in
            let answer = await endpoint.respond(to: call)
            respond(ServerResponse(status: answer.status, headers: ["Content-Type": "application/json"], body: answer.data))
        }
    })
    return (server, endpoint)
}
