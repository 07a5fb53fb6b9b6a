import Foundation

/// Why a bridge operation failed. Codes are stable: page authors and logs switch on them.
///
/// A module handler may throw a `BridgeFailure` directly (it conforms to `Error`) or wrapped
/// in ``HybridError/bridge(_:)``; any other error reaches the page as `internal`.
public enum BridgeFailure: HybridFailureReason, Error {
    /// No module of that name is registered in this container.
    case unknownModule(String)
    /// The module exists but declares no such action.
    case unknownAction(module: String, action: String)
    /// The params did not decode into the action's parameter type; `reason` says where.
    case badParams(module: String, action: String, reason: String)
    /// The caller may not call this: origin not on the allowlist, a stale or foreign document.
    case denied(String)
    /// The call did not finish within its timeout.
    case timeout(milliseconds: Int)
    /// The page aborted the call (AbortSignal), its document went away, or the task was cancelled.
    case cancelled
    /// The message was larger than the configured limit (checked before parsing).
    case payloadTooLarge(size: Int, limit: Int)
    /// The web content process died while the call was pending.
    case engineTerminated(TerminationReason?)
    /// Too many calls are in flight; the page should retry later.
    case queueFull(limit: Int)
    /// The message is not a valid bridge message (bad JSON, wrong field types, unknown version).
    case malformed(String)
    /// The feature behind this action is not available in this container (no delegate set).
    case unavailable(String)
    /// A failure a module defines itself, with its own stable code and optional JSON data.
    case module(code: String, message: String, data: JSONValue?)
    /// Something this domain did not expect; `message` says what.
    case internalError(String)

    /// The stable code the page sees (`unknown_module`, `bad_params`, `denied`, ...), or the module's
    /// own code for ``module(code:message:data:)``.
    public var code: String {
        switch self {
        case .unknownModule: "unknown_module"
        case .unknownAction: "unknown_action"
        case .badParams: "bad_params"
        case .denied: "denied"
        case .timeout: "timeout"
        case .cancelled: "cancelled"
        case .payloadTooLarge: "payload_too_large"
        case .engineTerminated: "engine_terminated"
        case .queueFull: "queue_full"
        case .malformed: "malformed"
        case .unavailable: "unavailable"
        case .module(let code, _, _): code
        case .internalError: "internal"
        }
    }

    /// A message for people, naming the module, action or limit concerned.
    public var description: String {
        switch self {
        case .unknownModule(let name): "unknown module '\(name)'"
        case .unknownAction(let module, let action): "module '\(module)' has no action '\(action)'"
        case .badParams(let module, let action, let reason): "bad params for \(module).\(action): \(reason)"
        case .denied(let reason): "denied: \(reason)"
        case .timeout(let ms): "timed out after \(ms) ms"
        case .cancelled: "cancelled"
        case .payloadTooLarge(let size, let limit): "message of \(size) bytes exceeds the limit of \(limit) bytes"
        case .engineTerminated(let reason): "web content process terminated" + (reason.map { " (\($0))" } ?? "")
        case .queueFull(let limit): "too many calls in flight (limit \(limit))"
        case .malformed(let why): "malformed message: \(why)"
        case .unavailable(let what): "unavailable: \(what)"
        case .module(_, let message, _): message
        case .internalError(let message): message
        }
    }

    /// Extra JSON the page receives as `error.data`, when there is any.
    public var data: JSONValue? {
        switch self {
        case .module(_, _, let data): data
        case .payloadTooLarge(let size, let limit): ["size": .number(Double(size)), "limit": .number(Double(limit))]
        case .timeout(let ms): ["timeout": .number(Double(ms))]
        case .queueFull(let limit): ["limit": .number(Double(limit))]
        case .engineTerminated(let reason): reason.map { ["reason": .string($0.rawValue)] }
        default: nil
        }
    }

    /// The bridge failure an arbitrary error thrown by a handler stands for.
    public init(_ error: any Error) {
        switch error {
        case let failure as BridgeFailure: self = failure
        case HybridError.bridge(let failure): self = failure
        case HybridError.engine(.contentProcessTerminated(let reason)): self = .engineTerminated(reason)
        case let error as HybridError: self = .module(code: error.code, message: error.description, data: nil)
        case is CancellationError: self = .cancelled
        default: self = .internalError(String(describing: error))
        }
    }
}
