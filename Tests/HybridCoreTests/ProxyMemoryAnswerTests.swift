import Foundation
@testable import HybridBase
@testable import HybridNetwork
import Testing

/// ``RequestProxy/answerFromMemory(_:origin:policies:)``: a fresh GET the cache holds in memory is
/// answered at once, with the same checks and record as a full ``RequestProxy/perform(_:origin:progress:)``;
/// everything else is left to the full path (`nil`), which then reports and fails as before. No
/// server runs here: a request that went to the network would fail.
@Suite("Proxy: answers from the cache's memory")
struct ProxyMemoryAnswerTests {
    typealias Field = HTTPCacheEntry.Field
    static let api = "https://api.example.com/items"
    static let page = BridgeOrigin(url: URL(string: "https://api.example.com/")!)

    /// A proxy whose cache holds `headers`' response for ``api``, stored just now, and its records.
    static func proxy(_ headers: [Field] = [Field("Cache-Control", "max-age=600"), Field("Content-Type", "application/json")])
        throws -> (RequestProxy, Records)
    {
        var policy = try ProxyPolicy(requests: ["https://api.example.com"])
        policy.cache = ProxyCache.Configuration(directory: FileManager.default.temporaryDirectory.appendingPathComponent("hk-memory-\(UUID().uuidString)"))
        let records = Records()
        let proxy = RequestProxy(policy: policy, jar: nil) { records.add($0) }
        let now = Date()
        proxy.cache?.store(HTTPCacheEntry(url: api, identity: "anonymous", varying: [:], status: 200, headers: headers,
                                          body: Data(#"{"items":[1,2,3]}"#.utf8), requestTime: now, responseTime: now))
        return (proxy, records)
    }

    final class Records: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [ProxyRecord] = []
        func add(_ record: ProxyRecord) { lock.withLock { list.append(record) } }
        var all: [ProxyRecord] { lock.withLock { list } }
    }

    @Test func aFreshHeldResponseIsAnsweredAtOnceAndRecorded() throws {
        let (proxy, records) = try Self.proxy()
        let response = try #require(proxy.answerFromMemory(ProxyRequest(url: Self.api), origin: Self.page, policies: []))
        #expect(response.status == 200 && response.type == "basic" && response.text == #"{"items":[1,2,3]}"#)
        #expect(response.url == Self.api && !response.redirected)
        #expect(records.all.count == 1 && records.all.first?.cache == "hit" && records.all.first?.status == 200)
    }

    @Test func whatIsOnlyOnDiskIsLeftToTheFullPath() async throws {
        // A memory bound smaller than the entry: it is kept on disk only, and no file is read on
        // the way to a memory answer.
        var policy = try ProxyPolicy(requests: ["https://api.example.com"])
        policy.cache = ProxyCache.Configuration(directory: FileManager.default.temporaryDirectory.appendingPathComponent("hk-memory-\(UUID().uuidString)"),
                                                maxMemoryBytes: 16)
        let proxy = RequestProxy(policy: policy, jar: nil)
        proxy.cache?.store(HTTPCacheEntry(url: Self.api, identity: "anonymous", varying: [:], status: 200,
                                          headers: [Field("Cache-Control", "max-age=600"), Field("Content-Type", "application/json")],
                                          body: Data(#"{"items":[1,2,3]}"#.utf8), requestTime: Date(), responseTime: Date()))
        #expect(proxy.cache?.usage.disk ?? 0 > 0 && proxy.cache?.usage.memory == 0)
        #expect(proxy.answerFromMemory(ProxyRequest(url: Self.api), origin: Self.page, policies: []) == nil)
        let served = try await proxy.perform(ProxyRequest(url: Self.api), origin: Self.page)
        #expect(served.text == #"{"items":[1,2,3]}"#)
    }

    @Test func staleModesBodiesAndOtherMethodsAreNotAnswered() throws {
        let (stale, _) = try Self.proxy([Field("Cache-Control", "max-age=0"), Field("ETag", "\"v1\"")])
        #expect(stale.answerFromMemory(ProxyRequest(url: Self.api), origin: Self.page, policies: []) == nil)
        let (proxy, records) = try Self.proxy()
        var reload = ProxyRequest(url: Self.api)
        reload.cache = "no-cache"
        #expect(proxy.answerFromMemory(reload, origin: Self.page, policies: []) == nil)
        #expect(proxy.answerFromMemory(ProxyRequest(url: Self.api, method: "POST", body: "e30="), origin: Self.page, policies: []) == nil)
        #expect(proxy.answerFromMemory(ProxyRequest(url: "https://other.example.com/items"), origin: Self.page, policies: []) == nil)
        #expect(records.all.isEmpty)
    }

    @Test func aPolicyThatRefusesOrReportsLeavesItToTheFullPath() async throws {
        let (proxy, records) = try Self.proxy()
        let refusing = ContentSecurityPolicy(serialized: "connect-src https://elsewhere.example.com", disposition: .enforce)
        let reporting = ContentSecurityPolicy(serialized: "connect-src 'none'", disposition: .report)
        let allowing = ContentSecurityPolicy(serialized: "connect-src 'self'", disposition: .enforce)
        #expect(proxy.answerFromMemory(ProxyRequest(url: Self.api), origin: Self.page, policies: [refusing]) == nil)
        #expect(proxy.answerFromMemory(ProxyRequest(url: Self.api), origin: Self.page, policies: [reporting]) == nil)
        #expect(records.all.isEmpty)
        #expect(proxy.answerFromMemory(ProxyRequest(url: Self.api), origin: Self.page, policies: [allowing]) != nil)
        // The full path refuses it and says why.
        let rules = RequestProxy.PageRules(policies: [refusing]) { _ in }
        await #expect(throws: HybridError.self) {
            _ = try await proxy.perform(ProxyRequest(url: Self.api), origin: Self.page, progress: nil, events: nil, body: nil, rules: rules)
        }
    }

    @Test func aCrossOriginResponseWithoutCORSHeadersIsNotAnswered() async throws {
        let (proxy, records) = try Self.proxy()
        let foreign = BridgeOrigin(url: URL(string: "https://m.example.org/")!)
        #expect(proxy.answerFromMemory(ProxyRequest(url: Self.api), origin: foreign, policies: []) == nil)
        #expect(records.all.isEmpty)
        await #expect(throws: HybridError.self) { _ = try await proxy.perform(ProxyRequest(url: Self.api), origin: foreign) }
    }
}
