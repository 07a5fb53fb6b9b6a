import Foundation
import HybridBase

/// What the `navigation` module asks of the app: the container's navigation.
@MainActor
public protocol BridgeNavigationDelegate: AnyObject, Sendable {
    /// Open `url` in a new container (a new screen).
    func bridgeOpen(_ url: URL, title: String?) async throws
    /// Close the calling container.
    func bridgeClose() async throws
    /// Set the calling container's title.
    func bridgeSetTitle(_ title: String) async throws
    /// Go back in the calling container; `false` when there was nowhere to go.
    func bridgeGoBack() async throws -> Bool
}

/// What the `ui` module asks of the app: native toasts and dialogs.
@MainActor
public protocol BridgeUIDelegate: AnyObject, Sendable {
    /// Show a transient message.
    func bridgeToast(_ message: String, duration: TimeInterval) async
    /// Show an alert and return when it is dismissed.
    func bridgeAlert(title: String?, message: String) async
    /// Ask a yes/no question.
    func bridgeConfirm(title: String?, message: String) async -> Bool
}

/// Holds an app delegate weakly for modules that are values shared across tasks.
@MainActor
public final class BridgeDelegateSlot<Delegate>: Sendable {
    // Held weakly as `AnyObject`: the delegates are class-bound protocols, and a container
    // must not be kept alive by the modules it registered.
    private weak var object: AnyObject?

    /// The delegate (held weakly); `nil` makes the module's actions fail with `unavailable`.
    public var delegate: Delegate? {
        get { object as? Delegate }
        set { object = newValue.map { $0 as AnyObject } }
    }

    /// An empty slot (actions fail with `unavailable` until a delegate is set).
    public nonisolated init() {}
    /// A slot holding `delegate` weakly.
    public init(_ delegate: Delegate?) { self.delegate = delegate }

    package func require(_ what: String) throws -> Delegate {
        guard let delegate else { throw BridgeFailure.unavailable("no \(what) delegate is set") }
        return delegate
    }
}
