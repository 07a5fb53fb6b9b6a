import Foundation

/// The request proxy's page script (`hybrid-proxy.js`, a package resource) and its settings.
enum ProxyScript {
    /// `hybrid-proxy.js` as shipped.
    static let runtime: String = {
        guard let url = Bundle.module.url(forResource: "hybrid-proxy", withExtension: "js"),
              let source = try? String(contentsOf: url, encoding: .utf8)
        else { return "console.error('HybridKit: hybrid-proxy.js is missing from the bundle');" }
        return source
    }()

    /// The script preceded by the policy it enforces (`window.__hybridkitProxy`, which it
    /// deletes once read).
    static func source(policy: ProxyPolicy) -> String {
        "window.__hybridkitProxy = \(policy.scriptConfiguration.jsonText);\n" + runtime
    }
}
