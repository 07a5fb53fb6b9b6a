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

/// Package manifests, `latest.json` pointers and key rotation statements: the JSON documents a
/// client reads from a repository (after their signature verified, but a compromised or buggy
/// publisher is still a source of hostile bytes).
///
/// - Accepted documents validate, and round trip: encoded and decoded again they are equal, and
///   encoding is stable.
/// - Rejections carry the documented codes: `invalid_manifest`, `path_collision` and
///   `invalid_path` (a file path not in normal form) for manifests and pointers, `bad_rotation`
///   for statements.
/// - A statement applied to a trusted key set: only a well-formed statement that follows the
///   chain, names the current key and is signed by both keys is applied; anything else is
///   refused with `bad_rotation` or `key_revoked` and leaves the set as it was.
enum PackageChecks {
    static let manifestCodes: Set<String> = ["invalid_manifest", "path_collision", "invalid_path"]

    static func manifest(_ bytes: [UInt8]) throws {
        let data = Data(bytes)
        do {
            let manifest = try PackageManifest.decode(data)
            try manifest.validate()
            let encoded = try manifest.encoded()
            let again = try PackageManifest.decode(encoded)
            try require(again == manifest, "manifest round trip changed it")
            try require(try again.encoded() == encoded, "manifest encoding is not stable")
            for file in manifest.files { try require(manifest.file(at: file.path) == file, "file(at: \(file.path)) misses it") }
        } catch let violation as FuzzViolation {
            throw violation
        } catch {
            try requireCode(error, in: manifestCodes, "PackageManifest.decode")
        }
        do {
            let pointer = try PackagePointer.decode(data)
            let encoded = try pointer.encoded()
            try require(try PackagePointer.decode(encoded, expectedID: pointer.id) == pointer, "pointer round trip changed it")
            try require(pointer.manifest == PackageRepositoryLayout.manifest(id: pointer.id, version: pointer.version), "pointer names another manifest")
        } catch let violation as FuzzViolation {
            throw violation
        } catch {
            try requireCode(error, in: ["invalid_manifest"], "PackagePointer.decode")
        }
    }

    /// Fixed keys: the root the set trusts and the successor the seeds rotate to.
    static let root = try! Ed25519Signer(seed: Data(repeating: 1, count: 32))
    static let successor = try! Ed25519Signer(seed: Data(repeating: 2, count: 32))

    static func keyRotation(_ bytes: [UInt8]) throws {
        let statement = Data(bytes)
        let rotation: KeyRotation?
        do {
            let decoded = try KeyRotation.decode(statement)
            let encoded = try decoded.encoded()
            try require(try KeyRotation.decode(encoded) == decoded, "statement round trip changed it")
            rotation = decoded
        } catch let violation as FuzzViolation {
            throw violation
        } catch {
            try requireCode(error, in: ["bad_rotation"], "KeyRotation.decode")
            rotation = nil
        }
        let signatures = [(try root.sign(statement), try successor.sign(statement)), (Data(repeating: 7, count: 64), try successor.sign(statement))]
        for (index, (first, second)) in signatures.enumerated() {
            let set = TrustedKeySet(roots: [TrustedKey(publicKey: root.publicKey)], makeVerifier: { try Ed25519Verifier(publicKey: $0) })
            let signed = KeyRotation.Signed(statement: statement, signature: DetachedSignature.fileData(first),
                                            successorSignature: DetachedSignature.fileData(second))
            let follows = index == 0 && rotation.map { $0.sequence == 1 && $0.previous == root.publicKey && $0.next.publicKey == successor.publicKey } == true
            do {
                try set.apply(signed)
                try require(follows, "a statement was applied that is not signed by the current key and its successor")
                try require(set.currentKeys == [successor.publicKey] && set.sequence == 1, "the applied rotation did not move the head")
            } catch let violation as FuzzViolation {
                throw violation
            } catch {
                try require(!follows, "a good rotation was refused: \(error)")
                try requireCode(error, in: ["bad_rotation", "key_revoked"], "TrustedKeySet.apply")
                try require(set.currentKeys == [root.publicKey] && set.sequence == 0, "a refused rotation changed the set")
            }
        }
    }
}
