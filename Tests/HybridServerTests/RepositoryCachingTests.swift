import Foundation
import HybridCore
import HybridCrypto
import HybridFixtures
import HybridServer
import Testing

@Suite("Repository caching")
struct RepositoryCachingTests {
    static let sha = "ab" + String(repeating: "0123456789abcdef", count: 4).dropFirst(2)

    @Test func eachRepositoryFileHasItsLifetime() {
        let expectations: [(String, RepositoryCaching.Lifetime)] = [
            ("blobs/ab/\(Self.sha)", .immutable),
            ("/blobs/ab/\(Self.sha)", .immutable),
            ("packages/shop/7/manifest.json", .immutable),
            ("packages/shop/7/manifest.json.sig", .immutable),
            ("packages/shop/7/manifest.json.zlib", .immutable),
            ("packages/shop/latest.json", .shortLived),
            ("packages/shop/latest.json.sig", .shortLived),
            ("packages/shop/rollout.json", .shortLived),
            ("packages/shop/rollout.json.sig", .shortLived),
            ("index.json", .shortLived),
            ("keys/rotation-1.json.next.sig", .shortLived),
            ("config/latest.json", .shortLived),
            // Hostile or foreign names are never made immutable: a wrong guess there is cached for a year.
            ("blobs/cd/\(Self.sha)", .revalidate),                         // prefix is not the hash's
            ("blobs/AB/" + Self.sha.uppercased(), .revalidate),
            ("blobs/ab/\(Self.sha.dropLast())", .revalidate),
            ("packages/shop/latest/manifest.json", .revalidate),
            ("packages/shop/7/index.html", .revalidate),
            ("packages/shop/7/manifest.json.bak", .revalidate),
            ("index.html", .revalidate),
            ("config", .revalidate),
        ]
        for (path, lifetime) in expectations {
            #expect(RepositoryCaching.lifetime(ofPath: path) == lifetime, "\(path)")
        }
        #expect(RepositoryCaching.cacheControl(.immutable) == "public, max-age=31536000, immutable")
        #expect(RepositoryCaching.cacheControl(.shortLived) == "public, max-age=\(RepositoryCaching.shortLifetime)")
    }

    /// `hybrid serve`'s server on a real packed repository: every file's header is its class's, and a
    /// short-lived document revalidates with its ETag (304, no body).
    @Test func hybridServeSendsEachFilesCaching() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hk-repo-caching-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let site = root.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try Data("<h1>v1</h1>".utf8).write(to: site.appendingPathComponent("index.html"))
        let repository = root.appendingPathComponent("repo")
        _ = try PackageWriter(repository: repository, platform: .native, signer: Ed25519Signer.generate())
            .pack(site, options: .init(id: "shop", version: 1, origin: "https://m.example.com/shop/"))
        let server = try StaticSiteServer(root: repository)
        defer { server.stop() }
        let client = HTTPClient()
        var seen = Set<RepositoryCaching.Lifetime>()
        let files = FileManager.default.enumerator(atPath: repository.path)?.compactMap { $0 as? String } ?? []
        for path in files.sorted() where !path.hasSuffix("/") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: repository.appendingPathComponent(path).path, isDirectory: &isDirectory),
                  !isDirectory.boolValue else { continue }
            let reply = try await client.send(server.server.url("/" + path), method: "GET", headers: [:])
            let lifetime = RepositoryCaching.lifetime(ofPath: path)
            seen.insert(lifetime)
            #expect(reply.status == 200 && reply.header("Cache-Control") == RepositoryCaching.cacheControl(lifetime), "\(path)")
            #expect(reply.header("ETag") != nil && reply.header("Last-Modified") != nil, "\(path)")
        }
        #expect(seen == [.immutable, .shortLived], "\(files)")
        let pointer = server.server.url("/packages/shop/latest.json")
        let etag = try #require(try await client.send(pointer, method: "GET", headers: [:]).header("ETag"))
        let revalidated = try await client.send(pointer, method: "GET", headers: ["If-None-Match": etag])
        #expect(revalidated.status == 304 && revalidated.body.isEmpty)
        #expect(revalidated.header("Cache-Control") == "public, max-age=60")
    }
}
