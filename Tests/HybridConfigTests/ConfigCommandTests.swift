import Foundation
import HybridCore
import HybridCrypto
import HybridFixtures
import Testing

@Suite("hybrid config: template, sign, inspect, explain")
struct ConfigCommandTests {
    @Test func publisherRoundTrip() async throws {
        let tool = try HybridTool.built()
        let fixture = try ConfigFixture()
        defer { fixture.cleanUp() }
        let dir = fixture.directory
        // Child processes block: run them off the cooperative pool, assert here.
        func hybrid(_ arguments: String...) async throws -> HybridTool.Run {
            try await offPool { try tool.run(arguments, in: dir) }
        }
        #expect(try await hybrid("keygen", "--out", "keys").status == 0)
        #expect(try await hybrid("config", "template", "--out", "c.json", "--version", "3").status == 0)
        let signed = try await hybrid("config", "sign", "c.json", "--key", "keys/private", "--repo", "repo")
        #expect(signed.status == 0, "\(signed.output)")
        // What the CLI published verifies with the library, unchanged.
        let document = try Data(contentsOf: dir.appendingPathComponent("repo/config/latest.json"))
        let signature = try Data(contentsOf: dir.appendingPathComponent("repo/config/latest.json.sig"))
        let verifier = try Ed25519KeyFiles.verifier(at: dir.appendingPathComponent("keys/public"))
        #expect(try RemoteConfigClient.verify(document, signature: signature, with: verifier).version == 3)

        let inspect = try await hybrid("config", "inspect", "repo/config/latest.json", "--key", "keys/public")
        #expect(inspect.status == 0 && inspect.output.contains("signature:   ok") && inspect.output.contains("3. default"), "\(inspect.output)")
        let explain = try await hybrid("config", "explain", "https://m.example.com/app/index.html", "--install-id", "abc",
                                       "--config", "repo/config/latest.json", "--key", "keys/public")
        #expect(explain.status == 0)
        #expect(explain.output.contains("decision:   rule 'app-offline'"), "\(explain.output)")
        #expect(explain.output.contains("offline package 'app'"))

        // Re-publishing the same version is refused; a tampered file fails inspection.
        let again = try await hybrid("config", "sign", "c.json", "--key", "keys/private", "--repo", "repo")
        #expect(again.status == 1 && again.output.contains("re-published"), "\(again.output)")
        var tampered = document
        tampered[tampered.count / 2] ^= 0x01
        try tampered.write(to: dir.appendingPathComponent("repo/config/latest.json"))
        #expect(try await hybrid("config", "inspect", "repo/config/latest.json", "--key", "keys/public").status != 0)
        #expect(try await hybrid("config", "nonsense").status == 64)
    }
}
