import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import HybridCrypto

/// Documents, keys and signed bytes for config tests.
struct ConfigFixture {
    let signer: Ed25519Signer
    let verifier: Ed25519Verifier
    let directory: URL
    static let epoch = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        signer = try Ed25519Signer.generate()
        verifier = try Ed25519Verifier(publicKey: signer.publicKey)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-cfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// Three rules: a 10 % Blink slice of /shop, the offline app, and the default.
    static func document(version: Int = 1, created: Date = epoch, lifetime: TimeInterval = 86_400,
                         killSwitch: Bool = false, shopRollout: Double = 10) throws -> RemoteConfig {
        RemoteConfig(
            version: version, created: created, expires: created.addingTimeInterval(lifetime), killSwitch: killSwitch,
            engines: ["webkit": EngineProfile(kind: "webkit"), "blink": EngineProfile(kind: "blink")],
            rules: [
                ConfigRule(id: "shop-blink", match: try ConfigURLPattern("https://*.example.com/shop/*"), rollout: shopRollout,
                           features: FeatureSet(cookieSync: true, engine: "blink")),
                ConfigRule(id: "app", match: try ConfigURLPattern("https://m.example.com/app/*"),
                           features: FeatureSet(offlinePackage: "app", requestProxy: true, cookieSync: true, urlInterception: true, engine: "webkit")),
                ConfigRule(id: "default", match: try ConfigURLPattern("*"), features: FeatureSet(cookieSync: true, engine: "webkit")),
            ])
    }

    /// The document's bytes and the `.sig` file's bytes.
    func signed(_ config: RemoteConfig) throws -> (document: Data, signature: Data) {
        let bytes = try config.encoded()
        return (bytes, DetachedSignature.fileData(try signer.sign(bytes)))
    }

    /// A client with its cache in this fixture's directory (offline: the repository is unroutable).
    func client(now: Date = epoch.addingTimeInterval(60), installID: String = "install-1",
                repository: URL = URL(string: "http://127.0.0.1:9/")!) -> RemoteConfigClient {
        let options = RemoteConfigClient.Options(repository: repository, cache: RemoteConfigCache(directory: directory.appendingPathComponent("cache")),
                                                 installID: installID, timeout: 5)
        return RemoteConfigClient(options: options, verifier: verifier, now: { now })
    }

    /// Writes a signed document into `repository/config/`.
    func publish(_ config: RemoteConfig, into repository: URL) throws {
        let (document, signature) = try signed(config)
        let folder = repository.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try document.write(to: repository.appendingPathComponent(ConfigRepositoryLayout.document))
        try signature.write(to: repository.appendingPathComponent(ConfigRepositoryLayout.signature))
    }
}

extension HybridError {
    /// The config reason, for `#expect(throws:)` closures.
    var configCode: String? { if case .config(let reason) = self { reason.code } else { nil } }
}
