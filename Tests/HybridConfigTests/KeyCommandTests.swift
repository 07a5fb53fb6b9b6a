import Foundation
import HybridCore
import HybridFixtures
import Testing

/// `hybrid key rotate` refuses rotations clients would refuse, and `hybrid pack` an expired key.
@Suite("hybrid key rotate: the publisher's refusals")
struct KeyCommandTests {
    @Test func anExpiredSuccessorAndAKeyThatIsNotTheRepositorysAreRefusedUnlessForced() async throws {
        let tool = try HybridTool.built()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hk-key-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("site"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("<p>hi</p>".utf8).write(to: dir.appendingPathComponent("site/index.html"))
        func hybrid(_ arguments: String...) async throws -> HybridTool.Run {
            try await offPool { try tool.run(arguments, in: dir) }
        }
        func pack(_ version: Int, key: String) async throws -> HybridTool.Run {
            try await hybrid("pack", "site", "--id", "shop", "--version", "\(version)", "--origin", "https://m.example.com/shop/",
                             "--key", key, "--repo", "repo")
        }
        let rotation = dir.appendingPathComponent("repo/keys/rotation-1.json")
        #expect(try await hybrid("keygen", "--out", "current").status == 0)
        #expect(try await hybrid("keygen", "--out", "other").status == 0)
        #expect(try await pack(1, key: "current/private").status == 0)

        // A key that signed none of the repository's pointers is not its current key.
        let wrongKey = try await hybrid("key", "rotate", "--key", "other/private", "--out", "next", "--repo", "repo")
        #expect(wrongKey.status == 2, "\(wrongKey.output)")
        #expect(wrongKey.output.contains("is not the repository's current signing key"), "\(wrongKey.output)")
        #expect(!FileManager.default.fileExists(atPath: rotation.path))

        // A successor whose window has closed before it is published.
        let expired = try await hybrid("key", "rotate", "--key", "current/private", "--out", "next", "--repo", "repo", "--valid-days", "0")
        #expect(expired.status == 2, "\(expired.output)")
        #expect(expired.output.contains("would already be expired"), "\(expired.output)")
        #expect(!FileManager.default.fileExists(atPath: rotation.path))

        // --force publishes it, says so, and pack still refuses to sign with the expired key.
        let forced = try await hybrid("key", "rotate", "--key", "current/private", "--out", "next", "--repo", "repo",
                                      "--valid-days", "0", "--force")
        #expect(forced.status == 0 && forced.output.contains("rotating anyway (--force)"), "\(forced.output)")
        #expect(FileManager.default.fileExists(atPath: rotation.path))
        let packExpired = try await pack(2, key: "next/private")
        #expect(packExpired.status == 2, "\(packExpired.output)")
        #expect(packExpired.output.contains("expired at"), "\(packExpired.output)")
        #expect(PackageWriterLatest.version(in: dir.appendingPathComponent("repo")) == 1)

        // With a rotation in place, the key it rotated away from is not current either; a good rotation passes.
        let stale = try await hybrid("key", "rotate", "--key", "current/private", "--out", "later", "--repo", "repo")
        #expect(stale.status == 2 && stale.output.contains("names"), "\(stale.output)")
        let good = try await hybrid("key", "rotate", "--key", "next/private", "--out", "later", "--repo", "repo", "--valid-days", "30")
        #expect(good.status == 0, "\(good.output)")
        #expect(try await pack(2, key: "later/private").status == 0)
    }
}

/// The version a repository's `shop` pointer names.
private enum PackageWriterLatest {
    static func version(in repository: URL) -> Int? {
        let url = repository.appendingPathComponent(PackageRepositoryLayout.pointer(id: "shop"))
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        return try? PackagePointer.decode(data, expectedID: "shop").version
    }
}
