import Foundation

/// Why a saved page state (``HybridError/restore(_:)``) cannot be given back to a view. Codes are
/// stable: apps switch on them to decide whether to drop the bytes they stored.
public enum RestoreFailure: HybridFailureReason {
    /// The bytes are not a page-state snapshot of a format this version reads (`message` says why).
    case corrupt(String)
    /// The snapshot is larger than `limit` bytes (its size, or a field in it, is over the bound).
    case tooLarge(size: Int, limit: Int)
    /// The snapshot was taken at `taken` and was good only until `expired`.
    case expired(taken: Date, expired: Date)
    /// The snapshot's page is of `snapshot`, not of the origin it would be restored into.
    case foreignOrigin(snapshot: String, target: String)
    /// The view has no page state to give (nothing loaded, or the page opted out with
    /// `<meta name="hybrid-restore" content="none">`).
    case nothingToSave

    /// A stable, lower-case code (`restore_corrupt`, `restore_expired`, …).
    public var code: String {
        switch self {
        case .corrupt: "restore_corrupt"
        case .tooLarge: "restore_too_large"
        case .expired: "restore_expired"
        case .foreignOrigin: "restore_foreign_origin"
        case .nothingToSave: "restore_nothing_to_save"
        }
    }

    /// What went wrong, for people.
    public var description: String {
        switch self {
        case .corrupt(let message): "page state snapshot is corrupt: \(message)"
        case .tooLarge(let size, let limit): "page state snapshot of \(size) bytes exceeds the limit of \(limit)"
        case .expired(let taken, let expired): "page state snapshot taken \(taken) expired \(expired)"
        case .foreignOrigin(let snapshot, let target): "page state of \(snapshot) cannot be restored into \(target)"
        case .nothingToSave: "the page has no state to save"
        }
    }
}
