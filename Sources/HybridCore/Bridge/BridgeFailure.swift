import Foundation

/// Why a bridge operation failed. Codes are stable: page authors and logs switch on them.
public enum BridgeFailure: HybridFailureReason {
    /// Something this domain did not expect; `message` says what.
    case internalError(String)

    public var code: String {
        switch self {
        case .internalError: "internal"
        }
    }

    public var description: String {
        switch self {
        case .internalError(let message): message
        }
    }
}
