import Foundation
import HybridEngine

/// The app's side of remote config's engine choice: which ``WebEngineProvider`` builds each
/// ``EngineProfile`` kind.
///
/// Policy stays in the document (which URL, which share of installs, which named engine); an
/// app registers one factory per kind it ships (`webkit`, `blink`, …) and asks for the provider
/// of each navigation's ``FeatureDecision``. A new engine plugs in with one `register` call.
/// A decision naming a kind this build lacks — an old app meeting a newer document — gets the
/// default provider, never an error: a page must always open.
///
/// ```swift
/// let engines = EngineRegistry(defaultProvider: webkit)
/// engines.register(kind: "blink") { profile in try BlinkEngineProvider(options: profile.options) }
/// let view = try HybridWebView(provider: engines.provider(for: config.features(for: url)), …)
/// ```
@MainActor
public final class EngineRegistry {
    /// Builds a provider from a profile's options; it may throw when the engine cannot start.
    public typealias Factory = @MainActor (EngineProfile) throws -> any WebEngineProvider

    /// The provider for decisions that name no engine (safe defaults, kill switch, no config).
    public let defaultProvider: any WebEngineProvider
    private var factories: [String: Factory] = [:]
    // One provider per distinct profile: views of the same profile share processes and a session.
    private var providers: [EngineProfile: any WebEngineProvider] = [:]

    /// A registry with no kinds: every decision gets `defaultProvider` until kinds are registered.
    public init(defaultProvider: any WebEngineProvider) {
        self.defaultProvider = defaultProvider
    }

    /// Registers (or replaces) the factory for `kind`. Providers it already made stay in use.
    public func register(kind: String, _ factory: @escaping Factory) {
        factories[kind] = factory
    }

    /// The kinds registered, sorted.
    public var kinds: [String] { factories.keys.sorted() }

    /// Whether this build can honour `decision`'s engine choice.
    public func supports(_ decision: FeatureDecision) -> Bool {
        guard let profile = decision.engine else { return true }
        return factories[profile.kind] != nil
    }

    /// The provider a page under `decision` should be created with: the one for its engine
    /// profile (made once, then reused), or ``defaultProvider`` when the decision names none or
    /// a kind this build does not register.
    /// - Throws: what the kind's factory throws when it cannot start its engine.
    public func provider(for decision: FeatureDecision) throws -> any WebEngineProvider {
        guard let profile = decision.engine, let factory = factories[profile.kind] else { return defaultProvider }
        if let existing = providers[profile] { return existing }
        let made = try factory(profile)
        providers[profile] = made
        return made
    }
}
