import Foundation
import HybridBase
import HybridHTTP

extension PackageFailure {
    /// The typed failure a ``BoundedFetch`` failure of `url` is.
    package static func from(_ failure: BoundedFetch.Failure, url: URL) -> PackageFailure {
        switch failure {
        case .tooLarge(let limit, let declared): .tooLarge(url: url.absoluteString, limit: limit, declared: declared)
        case .stalled(let seconds): .stalled(url: url.absoluteString, seconds: seconds)
        case .timedOut(let seconds): .timedOut(url: url.absoluteString, seconds: seconds)
        case .transport(let message): .downloadFailed(url: url.absoluteString, message: message)
        }
    }
}
