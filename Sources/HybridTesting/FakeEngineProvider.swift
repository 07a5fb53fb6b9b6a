import Foundation
import HybridCore

/// A provider of fake engine views: each is the real engine contract over a ``FakeEngineDriver``,
/// so a ``HybridWebView`` (or any code written against ``WebEngineProvider``) runs without a browser.
@MainActor
public final class FakeEngineProvider: WebEngineProvider {
    /// `fake`.
    public let engineName = "fake"
    /// What every view claims it can do.
    public let capabilities: EngineCapabilities
    /// The cookie store every view shares.
    public let store = MemoryEngineCookieStore()
    /// The shared ``store``.
    public var cookieStore: any EngineCookieStore { store }
    /// The views made so far, oldest first.
    public private(set) var engines: [ContractEngine<FakeEngineDriver>] = []
    /// The drivers of ``engines``, in the same order: play the engine's part through them.
    public var drivers: [FakeEngineDriver] { engines.map(\.driver) }

    /// A provider whose views claim `capabilities`.
    /// - Parameter capabilities: What the views claim (by default what the bridge uses on WebKit).
    public init(capabilities: EngineCapabilities = [.scriptWorlds, .messageReplies, .schemeRequestBodies]) {
        self.capabilities = capabilities
    }

    /// A new fake view under the contract.
    /// - Parameter configuration: The view's configuration (its handlers are what the page can post to).
    /// - Returns: The contract over a new ``FakeEngineDriver``.
    public func makeEngine(_ configuration: EngineConfiguration) throws -> any WebEngine {
        makeFakeEngine(configuration)
    }

    /// Like ``makeEngine(_:)`` with the concrete type.
    /// - Parameter configuration: The view's configuration.
    /// - Returns: The contract over a new ``FakeEngineDriver``.
    public func makeFakeEngine(_ configuration: EngineConfiguration = EngineConfiguration()) -> ContractEngine<FakeEngineDriver> {
        let driver = FakeEngineDriver(capabilities: capabilities, configuration: configuration, cookieStore: store)
        let engine = ContractEngine(driver: driver, messageHandlers: configuration.messageHandlers)
        engines.append(engine)
        return engine
    }
}
