import Foundation

/// Why a config operation failed. Codes are stable: page authors and logs switch on them.
public enum ConfigFailure: HybridFailureReason {
    /// Something this domain did not expect; `message` says what.
    case internalError(String)
    /// The document is not valid JSON or breaks a rule of the format (`message` says which).
    case invalidDocument(String)
    /// A URL pattern cannot be parsed.
    case invalidPattern(pattern: String, reason: String)
    /// A rule names an engine configuration the document's registry lacks.
    case unknownEngine(rule: String, engine: String)
    /// The detached signature does not verify with the trusted key.
    case badSignature
    /// The detached signature file is missing or empty.
    case missingSignature
    /// The document is signed by a trusted key whose validity ended at `until` (a ``TrustedKeySet``).
    case keyExpired(key: String, until: Date)
    /// The document is signed by a trusted key valid only from `from`.
    case keyNotYetValid(key: String, from: Date)
    /// The document is signed by a revoked key.
    case keyRevoked(key: String)
    /// A version lower than the highest accepted was offered (a replay or downgrade).
    case versionRollback(offered: Int, current: Int)
    /// The same version number was offered with different contents.
    case versionReused(Int)
    /// The document's expiry date has passed.
    case expired(version: Int, expires: Date)
    /// The server answered with an unexpected HTTP status.
    case httpStatus(url: String, status: Int)
    /// A transfer failed below HTTP (connection refused, reset, timeout, too large).
    case downloadFailed(url: String, message: String)
    /// The document exceeded the size limit as it arrived, or declared a `Content-Length` over it.
    case tooLarge(url: String, limit: Int, declared: Int64?)
    /// No byte arrived (headers included) for `seconds`, the stall deadline.
    case stalled(url: String, seconds: TimeInterval)
    /// The download took longer than `seconds`, the overall deadline.
    case timedOut(url: String, seconds: TimeInterval)
    /// The last good document could not be written to the cache.
    case cacheWriteFailed(path: String, message: String)
    /// A rule's prefetch declaration breaks a rule of the format (`reason` says which).
    case invalidPrefetch(rule: String, key: String, reason: String)
    /// A prefetch declaration targets an origin the app does not let remote config prefetch from.
    case prefetchTargetNotAllowed(key: String, origin: String)

    /// A stable, lower-case code for logs (`bad_signature`, `version_rollback`, ...).
    public var code: String {
        switch self {
        case .internalError: "internal"
        case .invalidDocument: "invalid_config"
        case .invalidPattern: "invalid_pattern"
        case .unknownEngine: "unknown_engine"
        case .badSignature: "bad_signature"
        case .missingSignature: "missing_signature"
        case .keyExpired: "key_expired"
        case .keyNotYetValid: "key_not_yet_valid"
        case .keyRevoked: "key_revoked"
        case .versionRollback: "version_rollback"
        case .versionReused: "version_reused"
        case .expired: "expired"
        case .httpStatus: "http_status"
        case .downloadFailed: "download_failed"
        case .tooLarge: "too_large"
        case .stalled: "stalled"
        case .timedOut: "timeout"
        case .cacheWriteFailed: "cache_write_failed"
        case .invalidPrefetch: "invalid_prefetch"
        case .prefetchTargetNotAllowed: "prefetch_target_not_allowed"
        }
    }

    /// A message for people, with the version, rule, pattern or URL concerned.
    public var description: String {
        switch self {
        case .internalError(let message): message
        case .invalidDocument(let message): "invalid config: \(message)"
        case .invalidPattern(let pattern, let reason): "invalid URL pattern '\(pattern)': \(reason)"
        case .unknownEngine(let rule, let engine): "rule '\(rule)' names engine '\(engine)', which the registry lacks"
        case .badSignature: "config signature does not verify with the trusted key"
        case .missingSignature: "config signature is missing"
        case .keyExpired(let key, let until): "config signing key \(key) expired at \(PackageDates.format(until))"
        case .keyNotYetValid(let key, let from): "config signing key \(key) is valid only from \(PackageDates.format(from))"
        case .keyRevoked(let key): "config signing key \(key) is revoked"
        case .versionRollback(let offered, let current): "config version \(offered) is lower than the current \(current); refusing a downgrade"
        case .versionReused(let version): "config version \(version) was re-published with different contents"
        case .expired(let version, let expires): "config version \(version) expired at \(PackageDates.format(expires))"
        case .httpStatus(let url, let status): "HTTP \(status) for \(url)"
        case .downloadFailed(let url, let message): "download of \(url) failed: \(message)"
        case .tooLarge(let url, let limit, let declared):
            PackageFailure.tooLarge(url: url, limit: limit, declared: declared).description
        case .stalled(let url, let seconds): PackageFailure.stalled(url: url, seconds: seconds).description
        case .timedOut(let url, let seconds): PackageFailure.timedOut(url: url, seconds: seconds).description
        case .cacheWriteFailed(let path, let message): "cannot write the config cache \(path): \(message)"
        case .invalidPrefetch(let rule, let key, let reason): "rule '\(rule)' prefetch '\(key)': \(reason)"
        case .prefetchTargetNotAllowed(let key, let origin):
            "prefetch '\(key)' targets \(origin), which the app does not let remote config prefetch from"
        }
    }
}

extension HybridError {
    /// Shorthand for `HybridError.config(reason)`.
    package static func cfg(_ reason: ConfigFailure) -> HybridError { .config(reason) }
}
