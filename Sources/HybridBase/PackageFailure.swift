import Foundation

/// Why a package operation failed. Codes are stable: page authors and logs switch on them.
public enum PackageFailure: HybridFailureReason {
    /// Something this domain did not expect; `message` says what.
    case internalError(String)
    /// A package path is absolute, escapes the root, or holds a forbidden character or encoding.
    case invalidPath(path: String, reason: String)
    /// Two files would have the same path after Unicode and case normalisation.
    case pathCollision(String, String)
    /// A manifest or pointer is malformed or inconsistent (`message` says how).
    case invalidManifest(String)
    /// A signature does not verify with the trusted key.
    case badSignature(String)
    /// A signature file is missing or unreadable.
    case missingSignature(String)
    /// The signature is by a trusted key whose validity ended at `until` (``TrustedKeySet``):
    /// the publisher must sign with its successor (`hybrid key rotate`).
    case keyExpired(key: String, until: Date)
    /// The signature is by a trusted key whose validity starts at `from`.
    case keyNotYetValid(key: String, from: Date)
    /// The signature is by a key that was revoked (by the app, or by a rotation statement).
    case keyRevoked(key: String)
    /// A key rotation statement was refused (`reason` says why: out of sequence, signed by the
    /// wrong key, not signed by its successor, malformed).
    case badRotation(String)
    /// A version lower than the highest ever seen was offered (a replay or downgrade).
    case versionRollback(offered: Int, highestSeen: Int)
    /// A staged-rollout document (``PackageRollout``) older than the highest this device accepted
    /// for the package was offered (a replay: an old "running" document over a halt).
    case rolloutReplayed(offered: Int, highestSeen: Int)
    /// A staged-rollout document is malformed or inconsistent (`message` says how).
    case invalidRollout(String)
    /// The publisher tried to pack a version not above the repository's latest.
    case versionNotIncreasing(offered: Int, latest: Int)
    /// This version was rolled back on this device and will not be installed again.
    case versionRejected(Int)
    /// The manifest's expiry date has passed.
    case expired(id: String, version: Int, expires: Date)
    /// A blob's hash or size is not what the manifest says.
    case corruptBlob(sha256: String, reason: String)
    /// A blob the manifest references is not in the store or repository.
    case missingBlob(String)
    /// A byte-level patch against the base with SHA-256 `base` could not be used (`reason` says why);
    /// the updater falls back to the full blob.
    case badPatch(base: String, reason: String)
    /// The server answered with an unexpected HTTP status.
    case httpStatus(url: String, status: Int)
    /// A transfer failed below HTTP (connection refused, reset, timeout).
    case downloadFailed(url: String, message: String)
    /// A download exceeded its size limit as it arrived, or declared a `Content-Length` over it
    /// (`declared`, refused before the body was read).
    case tooLarge(url: String, limit: Int, declared: Int64?)
    /// A download received no byte (headers included) for `seconds`, its stall deadline.
    case stalled(url: String, seconds: TimeInterval)
    /// A download took longer than `seconds`, its overall deadline.
    case timedOut(url: String, seconds: TimeInterval)
    /// Writing to disk failed (`path`, `message`).
    case writeFailed(path: String, message: String)
    /// The disk is full (or a test injected that it is).
    case diskFull(path: String)
    /// Another installer held the store's lock for too long.
    case storeBusy(String)
    /// No version of this package is installed.
    case notInstalled(String)
    /// Rollback was asked for but there is no previous version to go back to.
    case noPreviousVersion(String)
    /// A blob is stored with an encoding this build cannot decode.
    case unsupportedEncoding(String)
    /// A key file is missing or malformed.
    case invalidKey(String)
    /// A test-injected crash at an install step (the process "died" here).
    case injectedCrash(String)

    /// A stable, lower-case code for logs and for page authors (`bad_signature`, `disk_full`, ...).
    public var code: String {
        switch self {
        case .internalError: "internal"
        case .invalidPath: "invalid_path"
        case .pathCollision: "path_collision"
        case .invalidManifest: "invalid_manifest"
        case .badSignature: "bad_signature"
        case .missingSignature: "missing_signature"
        case .keyExpired: "key_expired"
        case .keyNotYetValid: "key_not_yet_valid"
        case .keyRevoked: "key_revoked"
        case .badRotation: "bad_rotation"
        case .versionRollback: "version_rollback"
        case .rolloutReplayed: "rollout_replayed"
        case .invalidRollout: "invalid_rollout"
        case .versionNotIncreasing: "version_not_increasing"
        case .versionRejected: "version_rejected"
        case .expired: "expired"
        case .corruptBlob: "corrupt_blob"
        case .missingBlob: "missing_blob"
        case .badPatch: "bad_patch"
        case .httpStatus: "http_status"
        case .downloadFailed: "download_failed"
        case .tooLarge: "too_large"
        case .stalled: "stalled"
        case .timedOut: "timeout"
        case .writeFailed: "write_failed"
        case .diskFull: "disk_full"
        case .storeBusy: "store_busy"
        case .notInstalled: "not_installed"
        case .noPreviousVersion: "no_previous_version"
        case .unsupportedEncoding: "unsupported_encoding"
        case .invalidKey: "invalid_key"
        case .injectedCrash: "injected_crash"
        }
    }

    /// A message for people, with the path, version or URL concerned.
    public var description: String {
        switch self {
        case .internalError(let message): message
        case .invalidPath(let path, let reason): "invalid package path '\(path.debugDescription.dropFirst().dropLast())': \(reason)"
        case .pathCollision(let a, let b): "paths '\(a)' and '\(b)' collide after normalisation"
        case .invalidManifest(let message): "invalid manifest: \(message)"
        case .badSignature(let what): "signature of \(what) does not verify with the trusted key"
        case .missingSignature(let what): "signature of \(what) is missing"
        case .keyExpired(let key, let until): "signing key \(key) expired at \(PackageDates.format(until)); sign with its successor"
        case .keyNotYetValid(let key, let from): "signing key \(key) is valid only from \(PackageDates.format(from))"
        case .keyRevoked(let key): "signing key \(key) is revoked"
        case .badRotation(let reason): "key rotation refused: \(reason)"
        case .versionRollback(let offered, let highest): "version \(offered) is lower than the highest seen (\(highest)); refusing a downgrade"
        case .rolloutReplayed(let offered, let highest):
            "rollout document \(offered) is older than the one already accepted (\(highest)); refusing a replay"
        case .invalidRollout(let message): "invalid rollout: \(message)"
        case .versionNotIncreasing(let offered, let latest): "version \(offered) must be greater than the repository's latest (\(latest))"
        case .versionRejected(let version): "version \(version) was rolled back on this device; waiting for a newer one"
        case .expired(let id, let version, let expires): "\(id) version \(version) expired at \(PackageDates.format(expires))"
        case .corruptBlob(let sha, let reason): "blob \(sha.prefix(16))… is corrupt: \(reason)"
        case .missingBlob(let sha): "blob \(sha.prefix(16))… is missing"
        case .badPatch(let base, let reason): "patch" + (base.isEmpty ? "" : " from \(base.prefix(16))…") + " is unusable: \(reason)"
        case .httpStatus(let url, let status): "HTTP \(status) for \(url)"
        case .downloadFailed(let url, let message): "download of \(url) failed: \(message)"
        case .tooLarge(let url, let limit, let declared?):
            "\(url) declares \(declared) bytes; the limit is \(limit), so it was refused before reading"
        case .tooLarge(let url, let limit, nil): "\(url) sent more than \(limit) bytes, the limit; the download was stopped"
        case .stalled(let url, let seconds):
            "no byte for \(PackageFailure.seconds(seconds)) s from \(url); the download was abandoned (the server stalled)"
        case .timedOut(let url, let seconds):
            "\(url) did not finish within \(PackageFailure.seconds(seconds)) s, the overall deadline; the download was abandoned"
        case .writeFailed(let path, let message): "cannot write \(path): \(message)"
        case .diskFull(let path): "no space left on device writing \(path)"
        case .storeBusy(let path): "package store \(path) is locked by another installer"
        case .notInstalled(let id): "package \(id) is not installed"
        case .noPreviousVersion(let id): "package \(id) has no previous version to roll back to"
        case .unsupportedEncoding(let name): "unsupported blob encoding '\(name)'"
        case .invalidKey(let message): "invalid key: \(message)"
        case .injectedCrash(let step): "injected crash at \(step)"
        }
    }
}

extension PackageFailure {
    /// A deadline as a user reads it: `2`, `0.5`.
    package static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%g", value)
    }
}

extension HybridError {
    /// Shorthand for `HybridError.package(reason)`, so package code reads `throw .pkg(…)`.
    package static func pkg(_ reason: PackageFailure) -> HybridError { .package(reason) }
}
