import Foundation
import HybridNetwork

extension ProxyPolicy {
    /// This policy as remote config decided it for a page: off when the rule turned the proxy off.
    public func applying(_ features: FeatureSet) -> ProxyPolicy {
        var policy = self
        policy.isEnabled = isEnabled && features.requestProxy
        return policy
    }
}
