import Foundation
import HybridCore
import HybridCrypto

/// `hybrid run --config FILE`: a remote-config document read from a file, deciding for the
/// target URL as an app's ``RemoteConfigClient`` would: engine, cookie sync, request proxy, URL
/// interception and the offline package, for one install's rollout buckets.
///
/// Signed or not: with a public key the detached signature `FILE.sig` must verify first, exactly
/// as a client checks it (so a publisher can try the very bytes they will ship); without one
/// the document is used unsigned, as a page author's draft (``isSigned`` says which).
struct RunConfigFile: Sendable {
    let path: String
    let config: RemoteConfig
    /// Whether the signature was checked and verified.
    let isSigned: Bool
    let installID: String

    /// A bad `--config` file: the run stops before opening anything, exit 2.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads, verifies (with `key`) and validates the document at `path`.
    /// - Throws: ``Failure`` naming the file and what is wrong (unreadable, not JSON, invalid,
    ///   missing or bad signature), with the failure code a client would report.
    init(path: String, key: String?, installID: String) throws {
        self.path = path
        self.installID = installID
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "--config \(path): cannot read the file")
        }
        do {
            if let key {
                let verifier = try Ed25519KeyFiles.verifier(at: URL(fileURLWithPath: key))
                config = try RemoteConfigClient.verify(bytes, signature: FileManager.default.contents(atPath: path + ".sig"), with: verifier)
                isSigned = true
            } else {
                config = try RemoteConfig.decode(bytes)
                isSigned = false
            }
        } catch let error as HybridError {
            throw Failure(description: "--config \(path): [\(error.code)] \(error)"
                          + (error.code == "missing_signature" ? " (expected the signature at \(path).sig)" : ""))
        } catch {
            throw Failure(description: "--config \(path): \(error)")
        }
    }

    /// The decision for `url`, with the client's expiry rule: an expired document gives safe defaults.
    func decision(for url: URL, now: Date = Date()) -> FeatureDecision {
        guard config.expires > now else {
            return FeatureDecision(url: url, installID: installID, source: .expired(version: config.version),
                                   configVersion: config.version, features: .safeDefaults, engine: nil, trace: [])
        }
        return config.features(for: url, installID: installID)
    }

    /// What `hybrid run` prints about the decision (always one line; the whole trace with `--verbose`).
    func describe(_ decision: FeatureDecision, verbose: Bool) -> String {
        let source: String = switch decision.source {
        case .rule(let id): "rule '\(id)'"
        case .killSwitch: "kill switch on → safe defaults"
        case .noConfig: "no usable config → safe defaults"
        case .expired(let version): "version \(version) expired → safe defaults"
        case .noRuleMatched: "no rule matched → safe defaults"
        }
        let head = "hybrid run: config \(path) version \(config.version) (\(isSigned ? "signature verified" : "unsigned")): "
            + "\(source); engine \(decision.engineName); \(decision.features.summary)"
        return verbose ? head + "\n" + decision.description : head
    }
}
