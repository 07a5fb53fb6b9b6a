import Foundation
import HybridCore
import HybridCrypto
import Testing

/// Runs the `hybrid` binary built beside the tests.
struct HybridTool {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("hybrid")
    var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: binary.path) }

    /// Exit status and standard output + error of `hybrid ARGS` run in `directory`.
    func run(_ arguments: [String], in directory: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

@Suite("hybrid config: template, sign, inspect, explain")
struct ConfigCommandTests {
    @Test func publisherRoundTrip() throws {
        let tool = HybridTool()
        guard tool.isBuilt else {
            Issue.record("hybrid binary not built beside the tests at \(tool.binary.path)")
            return
        }
        let fixture = try ConfigFixture()
        defer { fixture.cleanUp() }
        let dir = fixture.directory
        #expect(try tool.run(["keygen", "--out", "keys"], in: dir).status == 0)
        #expect(try tool.run(["config", "template", "--out", "c.json", "--version", "3"], in: dir).status == 0)
        let signed = try tool.run(["config", "sign", "c.json", "--key", "keys/private", "--repo", "repo"], in: dir)
        #expect(signed.status == 0, "\(signed.output)")
        // What the CLI published verifies with the library, unchanged.
        let document = try Data(contentsOf: dir.appendingPathComponent("repo/config/latest.json"))
        let signature = try Data(contentsOf: dir.appendingPathComponent("repo/config/latest.json.sig"))
        let verifier = try Ed25519KeyFiles.verifier(at: dir.appendingPathComponent("keys/public"))
        #expect(try RemoteConfigClient.verify(document, signature: signature, with: verifier).version == 3)

        let inspect = try tool.run(["config", "inspect", "repo/config/latest.json", "--key", "keys/public"], in: dir)
        #expect(inspect.status == 0 && inspect.output.contains("signature:   ok") && inspect.output.contains("3. default"), "\(inspect.output)")
        let explain = try tool.run(["config", "explain", "https://m.example.com/app/index.html", "--install-id", "abc",
                                    "--config", "repo/config/latest.json", "--key", "keys/public"], in: dir)
        #expect(explain.status == 0)
        #expect(explain.output.contains("decision:   rule 'app-offline'"), "\(explain.output)")
        #expect(explain.output.contains("offline package 'app'"))

        // Re-publishing the same version is refused; a tampered file fails inspection.
        #expect(try tool.run(["config", "sign", "c.json", "--key", "keys/private", "--repo", "repo"], in: dir).status == 1)
        var tampered = document
        tampered[tampered.count / 2] ^= 0x01
        try tampered.write(to: dir.appendingPathComponent("repo/config/latest.json"))
        #expect(try tool.run(["config", "inspect", "repo/config/latest.json", "--key", "keys/public"], in: dir).status != 0)
        #expect(try tool.run(["config", "nonsense"], in: dir).status == 64)
    }
}
