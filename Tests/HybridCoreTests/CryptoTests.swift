import Foundation
import HybridCore
import HybridCrypto
import Testing

@Suite struct CryptoTests {
    @Test func sha256MatchesKnownVectorsWhenStreamed() {
        let digests = SodiumDigests()
        #expect(digests.sha256Hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        var digest = digests.makeSHA256()
        for piece in ["a", "b", "c"] { digest.update(Data(piece.utf8)) }
        #expect(digest.finalize() == Data(hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
    }

    @Test func ed25519MatchesRFC8032TestVector() throws {
        // RFC 8032 §7.1, TEST 1: the same bytes CryptoKit's Curve25519.Signing produces and checks.
        let signer = try Ed25519Signer(seed: Data(hex: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        #expect(signer.publicKey == Data(hex: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
        let signature = try signer.sign(Data())
        #expect(signature == Data(hex: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"))
        let verifier = try Ed25519Verifier(publicKey: signer.publicKey)
        #expect(verifier.isValidSignature(signature, of: Data()))
        #expect(!verifier.isValidSignature(signature, of: Data([0x72])))
    }

    @Test func tamperedSignatureOrWrongKeyFails() throws {
        let signer = try Ed25519Signer.generate()
        let other = try Ed25519Verifier(publicKey: try Ed25519Signer.generate().publicKey)
        let message = Data("manifest bytes".utf8)
        var signature = try signer.sign(message)
        #expect(!other.isValidSignature(signature, of: message))
        signature[10] ^= 0x01
        #expect(!(try Ed25519Verifier(publicKey: signer.publicKey)).isValidSignature(signature, of: message))
        #expect(!(try Ed25519Verifier(publicKey: signer.publicKey)).isValidSignature(Data(count: 12), of: message))
    }

    @Test func keyFilesRoundTripAsBase64RawKeysAndRefuseOverwrite() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let signer = try Ed25519KeyFiles.generate(into: directory)
        let privateText = try String(contentsOf: directory.appendingPathComponent("private"), encoding: .utf8)
        let publicText = try String(contentsOf: directory.appendingPathComponent("public"), encoding: .utf8)
        #expect(Data(base64Encoded: privateText.trimmingCharacters(in: .newlines))?.count == 32)
        #expect(Data(base64Encoded: publicText.trimmingCharacters(in: .newlines)) == signer.publicKey)
        let mode = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("private").path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        let reread = try Ed25519KeyFiles.signer(at: directory.appendingPathComponent("private"))
        let verifier = try Ed25519KeyFiles.verifier(at: directory)
        #expect(reread.publicKey == signer.publicKey)
        #expect(verifier.isValidSignature(try reread.sign(Data("x".utf8)), of: Data("x".utf8)))
        #expect(throws: HybridError.self) { try Ed25519KeyFiles.generate(into: directory) }
        // Signing with the public key file by mistake, or with a private key from another pair, is refused.
        #expect(throws: HybridError.self) { try Ed25519KeyFiles.signer(at: directory.appendingPathComponent("public")) }
        try Data((try Ed25519Signer.generate().seed.base64EncodedString() + "\n").utf8).write(to: directory.appendingPathComponent("private"))
        #expect(throws: HybridError.self) { try Ed25519KeyFiles.signer(at: directory) }
    }

    @Test func malformedKeysAreRefused() throws {
        #expect(throws: HybridError.self) { try Ed25519Signer(seed: Data(count: 31)) }
        #expect(throws: HybridError.self) { try Ed25519Verifier(publicKey: Data(count: 33)) }
        #expect(throws: HybridError.self) { try Ed25519KeyFiles.decodeKey("not base64!") }
        #expect(throws: HybridError.self) { try Ed25519KeyFiles.decodeKey(Data(count: 64).base64EncodedString()) }
    }

    @Test func zlibRoundTripsAndRefusesWrongSizeOrGarbage() throws {
        let zlib = try #require(ZlibCompressor.available)
        let text = Data(String(repeating: "compressible text ", count: 500).utf8)
        let packed = try #require(zlib.compress(text))
        #expect(packed.count < text.count / 10)
        #expect(try zlib.decompress(packed, expectedSize: text.count) == text)
        #expect(throws: HybridError.self) { try zlib.decompress(packed, expectedSize: text.count - 1) }
        #expect(throws: HybridError.self) { try zlib.decompress(Data("garbage".utf8), expectedSize: 10) }
    }
}

extension Data {
    init(hex: String) {
        var bytes = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }
}
