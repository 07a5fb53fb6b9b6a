import Foundation

extension HybridWebViewConfiguration {
    /// This configuration with what `decision` turns off removed, for a view about to open the
    /// decision's URL: no cookie sync unless the decision has it, and the offline package only
    /// when the decision names that package (from `packages`, by id).
    ///
    /// Features can only be removed here, never conjured: a decision naming a package the app
    /// has no binding for opens the page from the network, the safe default. Request proxy and
    /// URL interception are read from `decision.features` by the code that installs them.
    /// - Parameter packages: the app's package bindings by package id.
    public func applying(_ decision: FeatureDecision, packages: [String: PackageBinding] = [:]) -> HybridWebViewConfiguration {
        var configuration = self
        configuration.decision = decision
        if !decision.features.cookieSync { configuration.cookieSync = nil }
        if let id = decision.features.offlinePackage {
            configuration.package = packages[id] ?? (package?.id == id ? package : nil)
        } else {
            configuration.package = nil
        }
        return configuration
    }
}
