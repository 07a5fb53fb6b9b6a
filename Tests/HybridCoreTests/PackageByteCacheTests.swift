import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import Testing

/// The package handler's memory: a file read once is answered again without the disk, and never
/// once the active version changed under it.
@Suite struct PackageByteCacheTests {
    typealias Rig = PackageResolverTests

    static func text(_ resolution: PackageResolver.Resolution?) async throws -> String {
        let resolution = try #require(resolution)
        return String(decoding: try await Rig.body(try Rig.response(resolution)), as: UTF8.self)
    }

    /// v1 installed, a handler's cache, and `url` read once through it (so its bytes are kept).
    struct Served {
        let fixture: PackageFixture
        let store: PackageStore
        let cache = PackageServingCache()
        let resolver: PackageResolver

        init(_ url: String) throws {
            (fixture, store, _) = try Rig.installed()
            resolver = try #require(cache.resolver(store: store, id: "app", scheme: "app"))
            _ = resolver.resolve(Rig.request(url), keepingBytesIn: cache.bytes)
        }

        func fromMemory(_ request: SchemeRequest) -> PackageResolver.Resolution? {
            cache.resolveFromMemory(request, activeFile: store.activeURL("app"))
        }
    }

    @Test func aFileReadOnceIsAnsweredFromMemoryAndNothingElseIs() async throws {
        let (fixture, store, _) = try Rig.installed()
        defer { withExtendedLifetime(fixture) {} }
        let cache = PackageServingCache(), active = store.activeURL("app")
        let url = "app://m.example.com/app/js/app.js"
        // Nothing read yet: the main thread must not answer (it would have to read the disk).
        #expect(cache.resolveFromMemory(Rig.request(url), activeFile: active) == nil)
        let resolver = try #require(cache.resolver(store: store, id: "app", scheme: "app"))
        #expect(try await Self.text(resolver.resolve(Rig.request(url), keepingBytesIn: cache.bytes)) == PackageFixture.sampleSite["js/app.js"])
        #expect(try await Self.text(cache.resolveFromMemory(Rig.request(url), activeFile: active)) == PackageFixture.sampleSite["js/app.js"])
        // Another file of the same version was never read: still not from memory.
        #expect(cache.resolveFromMemory(Rig.request("app://m.example.com/app/css/app.css"), activeFile: active) == nil)
        // A path the package lacks needs no bytes: the network, decided from the manifest alone.
        guard case .network(let network)? = cache.resolveFromMemory(Rig.request("https://m.example.com/elsewhere"), activeFile: active) else {
            Issue.record("a path outside the package goes to the network"); return
        }
        #expect(network.absoluteString == "https://m.example.com/elsewhere")
    }

    @Test func hostileRequestsGetTheSameAnswersFromMemory() async throws {
        let (fixture, store, _) = try Rig.installed()
        defer { withExtendedLifetime(fixture) {} }
        let cache = PackageServingCache(), active = store.activeURL("app")
        let resolver = try #require(cache.resolver(store: store, id: "app", scheme: "app"))
        _ = resolver.resolve(Rig.request("app://m.example.com/app/js/app.js"), keepingBytesIn: cache.bytes)
        for url in ["app://m.example.com/app/js/..%2fjs/app.js", "app://m.example.com/app/%2e%2e/app/js/app.js",
                    "app://evil.example.com/app/js/app.js", "app://m.example.com:8443/app/js/app.js"] {
            let response = try Rig.response(try #require(cache.resolveFromMemory(Rig.request(url), activeFile: active), "\(url)"))
            #expect(response.status == 404, "\(url)")
        }
        // A method that is not a read is never answered from the package.
        guard case .network? = cache.resolveFromMemory(Rig.request("app://m.example.com/app/js/app.js", method: "POST"), activeFile: active) else {
            Issue.record("a POST is the network's"); return
        }
    }

    @Test func rangesConditionalsAndHeadFromMemory() async throws {
        let (fixture, store, _) = try Rig.installed()
        defer { withExtendedLifetime(fixture) {} }
        let cache = PackageServingCache(), active = store.activeURL("app")
        let url = "app://m.example.com/app/js/app.js"
        let whole = Data(PackageFixture.sampleSite["js/app.js"]!.utf8)
        let resolver = try #require(cache.resolver(store: store, id: "app", scheme: "app"))
        let first = try Rig.response(resolver.resolve(Rig.request(url), keepingBytesIn: cache.bytes))
        let etag = try #require(first.header("ETag"))

        let partial = try Rig.response(try #require(cache.resolveFromMemory(Rig.request(url, [("Range", "bytes=10-19")]), activeFile: active)))
        #expect(partial.status == 206)
        #expect(partial.header("Content-Range") == "bytes 10-19/\(whole.count)")
        #expect(try await Rig.body(partial) == whole[10..<20])
        let beyond = try Rig.response(try #require(cache.resolveFromMemory(Rig.request(url, [("Range", "bytes=5000-")]), activeFile: active)))
        #expect(beyond.status == 416)
        let unchanged = try Rig.response(try #require(cache.resolveFromMemory(Rig.request(url, [("If-None-Match", etag)]), activeFile: active)))
        #expect(unchanged.status == 304)
        let head = try Rig.response(try #require(cache.resolveFromMemory(Rig.request(url, method: "HEAD"), activeFile: active)))
        #expect(head.header("Content-Length") == String(whole.count))
        #expect(try await Rig.body(head).isEmpty)
    }

    @Test func anActivationOrRollbackIsNeverAnsweredFromTheOldVersion() async throws {
        let url = "app://m.example.com/app/index.html"
        let served = try Served(url)
        let (fixture, store, cache, active) = (served.fixture, served.store, served.cache, served.store.activeURL("app"))
        #expect(try await Self.text(served.fromMemory(Rig.request(url))) == PackageFixture.sampleSite["index.html"])

        var files = PackageFixture.sampleSite
        files["index.html"] = "<title>v2</title>"
        try fixture.pack(version: 2, files: files)
        try fixture.installFromDisk(version: 2, into: store)
        // v1's bytes are still in memory, but the active record is a new file: read it again.
        #expect(cache.resolveFromMemory(Rig.request(url), activeFile: active) == nil)
        let v2 = try #require(cache.resolver(store: store, id: "app", scheme: "app"))
        #expect(v2.package.manifest.version == 2)
        #expect(try await Self.text(v2.resolve(Rig.request(url), keepingBytesIn: cache.bytes)) == "<title>v2</title>")
        #expect(try await Self.text(cache.resolveFromMemory(Rig.request(url), activeFile: active)) == "<title>v2</title>")

        try fixture.installer(store).rollback("app")
        #expect(cache.resolveFromMemory(Rig.request(url), activeFile: active) == nil)
        let back = try #require(cache.resolver(store: store, id: "app", scheme: "app"))
        #expect(back.package.manifest.version == 1)
        // v1's index is still in memory (by content hash): served without reading it again.
        #expect(try await Self.text(cache.resolveFromMemory(Rig.request(url), activeFile: active)) == PackageFixture.sampleSite["index.html"])
    }

    @Test func theActiveManifestIsKeptOnlyWhileTheActiveRecordIsUnchanged() async throws {
        let served = try Served("app://m.example.com/app/index.html")
        let (fixture, store, cache) = (served.fixture, served.store, served.cache)
        #expect(cache.activeManifest(store: store, id: "app")?.version == 1)
        #expect(cache.activeManifest(store: store, id: "other") == nil)
        // Kept: while the active record is the file it was served from, the manifest is not read
        // again (its file could be gone and the answer would not change).
        let manifestFile = store.versionDirectory("app", 1).appendingPathComponent("manifest.json")
        let kept = try Data(contentsOf: manifestFile)
        try FileManager.default.removeItem(at: manifestFile)
        #expect(cache.activeManifest(store: store, id: "app")?.version == 1)
        try kept.write(to: manifestFile)

        // An activation is seen at once, before any request of the new version.
        var files = PackageFixture.sampleSite
        files["index.html"] = "<title>v2</title>"
        try fixture.pack(version: 2, files: files)
        try fixture.installFromDisk(version: 2, into: store)
        #expect(cache.activeManifest(store: store, id: "app")?.version == 2)
        // A rollback too, while the resolver kept is v2's.
        _ = try #require(cache.resolver(store: store, id: "app", scheme: "app"))
        try fixture.installer(store).rollback("app")
        #expect(cache.activeManifest(store: store, id: "app")?.version == 1)
        // Nothing installed: nothing, whatever the cache holds.
        try FileManager.default.removeItem(at: store.activeURL("app"))
        #expect(cache.activeManifest(store: store, id: "app") == nil)
    }

    @Test func largeFilesStayOnDiskAndTheCacheKeepsItsBound() async throws {
        let (fixture, store, _) = try Rig.installed()
        defer { withExtendedLifetime(fixture) {} }
        let cache = PackageServingCache(), active = store.activeURL("app")
        let resolver = try #require(cache.resolver(store: store, id: "app", scheme: "app"))
        let clip = "app://m.example.com/app/media/clip.mp4"
        _ = try await Rig.body(try Rig.response(resolver.resolve(Rig.request(clip), keepingBytesIn: cache.bytes)))
        #expect(cache.resolveFromMemory(Rig.request(clip), activeFile: active) == nil)
        #expect(cache.bytes.count == 0)

        let small = PackageByteCache(maxFileBytes: 8, maxTotalBytes: 12)
        func file(_ name: String, _ size: Int) throws -> (PackageFile, URL, FileStamp) {
            let url = fixture.root.appendingPathComponent("blob-\(name)")
            try Data(count: size).write(to: url)
            let file = PackageFile(path: try PackagePath(name), sha256: name, size: size, type: "text/plain",
                                   blob: name, storedSize: size, encoding: PackageFile.identity)
            return (file, url, try #require(FileStamp(url.path)))
        }
        let big = try file("big", 9), a = try file("a", 5), b = try file("b", 4), c = try file("c", 6), d = try file("d", 6)
        small.keep(Data(count: 9), of: big.0, stamp: big.2)
        #expect(small.count == 0)
        small.keep(Data(count: 5), of: a.0, stamp: a.2)
        small.keep(Data(count: 3), of: b.0, stamp: b.2)   // not the whole file: not kept
        small.keep(Data(count: 6), of: c.0, stamp: c.2)
        #expect(small.count == 11)
        small.keep(Data(count: 6), of: d.0, stamp: d.2)   // over the bound: the oldest goes
        #expect(small.bytes(of: a.0, at: a.1) == nil)
        #expect(small.bytes(of: c.0, at: c.1)?.count == 6)
        #expect(small.bytes(of: d.0, at: d.1)?.count == 6)
        #expect(small.count == 12)
    }

    @Test func aBlobChangedOrGoneOnDiskIsNeverAnsweredFromMemory() async throws {
        let url = "app://m.example.com/app/js/app.js"
        let served = try Served(url)
        let (cache, active, resolver) = (served.cache, served.store.activeURL("app"), served.resolver)
        let blob = resolver.package.contentsURL(of: try #require(resolver.package.manifest.file(at: PackagePath("js/app.js"))))
        #expect(served.fromMemory(Rig.request(url)) != nil)

        // Damaged on disk (same size, a new file as a repair or a copy would write it): read again.
        let damaged = Data(repeating: 0x20, count: try Data(contentsOf: blob).count)
        let replacement = blob.deletingLastPathComponent().appendingPathComponent("replacement")
        try damaged.write(to: replacement)
        #expect(rename(replacement.path, blob.path) == 0)
        #expect(cache.resolveFromMemory(Rig.request(url), activeFile: active) == nil)
        #expect(try await Rig.body(try Rig.response(resolver.resolve(Rig.request(url), keepingBytesIn: cache.bytes))) == damaged)

        // Collected or lost: not from memory, and the disk path sends it to the network as before.
        try FileManager.default.removeItem(at: blob)
        #expect(cache.resolveFromMemory(Rig.request(url), activeFile: active) == nil)
        guard case .network = resolver.resolve(Rig.request(url), keepingBytesIn: cache.bytes) else {
            Issue.record("a lost blob is fetched from the origin"); return
        }
    }
}
