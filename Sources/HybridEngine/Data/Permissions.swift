import Foundation
import HybridBase

/// A device or feature a page asks permission for.
public enum PermissionKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// The camera (`getUserMedia({video})`).
    case camera
    /// The microphone (`getUserMedia({audio})`).
    case microphone
    /// The position (`navigator.geolocation`).
    case geolocation
    /// Showing notifications (`Notification.requestPermission`).
    case notifications
}

/// A page's request for one or more permissions, as the engine reported it.
public struct PermissionRequest: Sendable, Equatable {
    /// What the page asked for (a `getUserMedia` call for audio and video asks for both).
    public var kinds: Set<PermissionKind>
    /// The origin that asked: the requesting frame's where the engine says which frame it was,
    /// otherwise the top document's.
    public var origin: BridgeOrigin
    /// The request came from the top document (`false`: an iframe; `nil`: the engine does not say).
    public var isMainFrame: Bool?

    /// A request as an engine adapter reports it.
    public init(kinds: Set<PermissionKind>, origin: BridgeOrigin, isMainFrame: Bool? = nil) {
        self.kinds = kinds
        self.origin = origin
        self.isMainFrame = isMainFrame
    }
}

/// The answer to a ``PermissionRequest``: all of its kinds are granted, or none.
public enum PermissionDecision: String, Sendable, Equatable, Codable {
    /// Grant every kind asked for.
    case allow
    /// Refuse (the page sees `NotAllowedError` / a denied state).
    case deny
}

/// What a ``PermissionPolicy`` does for an origin and kind.
public enum PermissionRule: Sendable, Equatable {
    /// Grant without asking.
    case allow
    /// Refuse without asking.
    case deny
    /// Ask the delegate (``HybridWebViewDelegate/webView(_:decidePermission:)``); its answer is
    /// remembered as the policy's ``PermissionPolicy/memory`` says.
    case ask
}

/// How long a delegate's answer to an ``PermissionRule/ask`` rule is kept.
public enum PermissionMemory: Sendable, Equatable {
    /// Not kept: the delegate is asked every time.
    case none
    /// Kept until the policy object goes away (the app's session).
    case session
    /// Kept in this file (JSON), written after each answer and read when the policy is made.
    case persistent(URL)
}
