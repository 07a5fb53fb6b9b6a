import Foundation
import HybridBridge

/// The request proxy's page script (`hybrid-proxy.js`, a package resource) and its settings.
enum ProxyScript {
    /// `hybrid-proxy.js` as shipped.
    static let runtime = ScriptResource.source("hybrid-proxy", in: .module)

    /// The script preceded by the policy it enforces (`window.__hybridkitProxy`, which it
    /// deletes once read).
    static func source(policy: ProxyPolicy) -> String {
        "window.__hybridkitProxy = \(policy.scriptConfiguration.jsonText);\n" + runtime
    }
}
