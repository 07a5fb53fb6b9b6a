import Foundation
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
import Testing

/// ``ProxyCache``'s store: entries round trip through disk, the bounds evict the least recently
/// used, and what is on disk is served only when it is a whole entry of the same key.
@Suite("Proxy cache store")
struct ProxyCacheTests {
    typealias Field = HTTPCacheEntry.Field

    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("hk-cache-test-\(UUID().uuidString)")
    }

    static func entry(_ url: String, identity: String = "anonymous", body: Data = Data("hello".utf8)) -> HTTPCacheEntry {
        HTTPCacheEntry(url: url, identity: identity, varying: ["accept": "text/html", "x-none": String?.none], status: 200,
                       headers: [Field("Cache-Control", "max-age=60"), Field("X-Odd", "a b\r\n%20 ü"), Field("Set-Cookie", "s=1")],
                       body: body, requestTime: Date(timeIntervalSince1970: 1_800_000_000.123),
                       responseTime: Date(timeIntervalSince1970: 1_800_000_001.456))
    }

    @Test func anEntryRoundTripsThroughItsFormatWithoutItsCookies() throws {
        let entry = Self.entry("https://a.example/x?q=1 2", body: Data([0, 10, 10, 255, 13]))
        let decoded = try HTTPCacheEntry.decode(entry.encoded())
        #expect(decoded == entry)
        #expect(HTTPCachePolicy.values("set-cookie", in: decoded.headers).isEmpty)
    }

    @Test func aDamagedEntryIsRefusedWhole() throws {
        let data = Self.entry("https://a.example/x").encoded()
        func refused(_ bytes: Data) -> Bool {
            do { _ = try HTTPCacheEntry.decode(bytes); return false } catch let error as HybridError { return error.code == "cache_corrupt" } catch { return false }
        }
        #expect(refused(data.dropLast()))                         // truncated body
        #expect(refused(data + Data("x".utf8)))                   // grown
        var flipped = data
        flipped[flipped.count - 1] ^= 1                           // same length, other bytes
        #expect(refused(flipped))
        #expect(refused(data.prefix(40)))                         // cut in the head
        #expect(refused(Data()))
        #expect(refused(Data("HKCACHE1\nurl https://a\nurl https://b\n\n".utf8)))  // repeated line
        #expect(refused(Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "status 200", with: "status 99").utf8)))
    }

    @Test func entriesPersistAndAreKeyedByIdentity() {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ProxyCache(configuration: .init(directory: directory))
        cache.store(Self.entry("https://a.example/x", identity: "alice"))
        #expect(cache.entry(url: "https://a.example/x", identity: "alice")?.body == Data("hello".utf8))
        #expect(cache.entry(url: "https://a.example/x", identity: "bob") == nil)
        #expect(cache.entry(url: "https://a.example/x", identity: "anonymous") == nil)
        // Another instance on the same directory finds it on disk.
        let reopened = ProxyCache(configuration: .init(directory: directory))
        #expect(reopened.entry(url: "https://a.example/x", identity: "alice")?.body == Data("hello".utf8))
        // Identities are hashes of the credentials, never the credentials.
        let identity = ProxyCache.identity([Field("Cookie", "session=secret")])
        #expect(identity != ProxyCache.identity([Field("Cookie", "session=other")]) && !identity.contains("secret"))
        #expect(ProxyCache.identity([]) == "anonymous")
        #expect(ProxyCache.identity([Field("Authorization", "Bearer t")]) != "anonymous")
    }

    @Test func aCorruptOrForeignFileOnDiskIsAMissAndIsRemoved() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ProxyCache(configuration: .init(directory: directory, maxMemoryBytes: 0))   // every read from disk
        let url = "https://a.example/x"
        cache.store(Self.entry(url, identity: "alice"))
        let file = directory.appendingPathComponent(ProxyCache.name(url: url, identity: "alice"))
        let whole = try Data(contentsOf: file)
        try whole.dropLast(3).write(to: file)
        #expect(cache.entry(url: url, identity: "alice") == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        // Another identity's whole entry copied under this key's name is not served either.
        cache.store(Self.entry(url, identity: "bob"))
        cache.store(Self.entry(url, identity: "alice"))
        try Data(contentsOf: directory.appendingPathComponent(ProxyCache.name(url: url, identity: "bob"))).write(to: file)
        #expect(cache.entry(url: url, identity: "alice") == nil)
        #expect(cache.entry(url: url, identity: "bob")?.identity == "bob")
    }

    @Test func theBoundsEvictTheLeastRecentlyUsed() {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = Data(repeating: 7, count: 1000)
        let size = Self.entry("https://a.example/0", body: body).encoded().count
        let cache = ProxyCache(configuration: .init(directory: directory, maxDiskBytes: size * 4 + 10, maxMemoryBytes: size * 2 + 10))
        for n in 0..<4 { cache.store(Self.entry("https://a.example/\(n)", body: body)) }
        _ = cache.entry(url: "https://a.example/0", identity: "anonymous")        // 0 is now the most recent
        cache.store(Self.entry("https://a.example/4", body: body))
        #expect(cache.entry(url: "https://a.example/1", identity: "anonymous") == nil)
        #expect(cache.entry(url: "https://a.example/0", identity: "anonymous") != nil)
        #expect(cache.usage.disk <= size * 4 + 10 && cache.usage.memory <= size * 2 + 10)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        #expect(files.count == 4)
        // Larger than a quarter of the disk bound: passes through unstored.
        cache.store(Self.entry("https://a.example/big", body: Data(count: size * 2)))
        #expect(cache.entry(url: "https://a.example/big", identity: "anonymous") == nil)
        // An unsafe method's success removes every identity's entry for its URL.
        cache.store(Self.entry("https://a.example/0", identity: "bob", body: body))
        cache.invalidate(url: "https://a.example/0")
        #expect(cache.entry(url: "https://a.example/0", identity: "anonymous") == nil)
        #expect(cache.entry(url: "https://a.example/0", identity: "bob") == nil)
    }

    @Test func aDisabledCacheStoresNothing() {
        let directory = Self.directory()
        let cache = ProxyCache(configuration: .init(isEnabled: false, directory: directory))
        cache.store(Self.entry("https://a.example/x"))
        #expect(cache.entry(url: "https://a.example/x", identity: "anonymous") == nil)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }
}
