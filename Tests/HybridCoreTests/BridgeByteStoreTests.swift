import Foundation
import Testing
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

/// A manual clock for expiry.
final class ByteStoreClock: Sendable {
    private let now = LockedState(ContinuousClock.now)
    var instant: ContinuousClock.Instant { now.withLock { $0 } }
    func advance(_ duration: Duration) { now.withLock { $0 += duration } }
}

@Suite("Bridge byte store keeps bytes bounded, once, for a while")
struct BridgeByteStoreTests {
    @Test func bytesAreTakenOnceByTheirToken() throws {
        let store = BridgeByteStore()
        let token = try store.put(Data([1, 2, 3]))
        #expect(BridgeByteStore.isToken(token))
        #expect(try store.take(token) == Data([1, 2, 3]))
        #expect(throws: BridgeByteStore.Refusal.unknownToken) { try store.take(token) }
        #expect(store.count == 0 && store.totalBytes == 0)
    }

    @Test func tokensAreRandomAndWellFormed() {
        let tokens = Set((0..<1000).map { _ in BridgeByteStore.makeToken() })
        #expect(tokens.count == 1000)
        #expect(tokens.allSatisfy(BridgeByteStore.isToken))
        for bad in ["", "ABCDEF0123456789abcdef0123456789", String(repeating: "a", count: 31), "../" + String(repeating: "a", count: 29)] {
            #expect(!BridgeByteStore.isToken(bad))
        }
    }

    /// Hostile: a page-made token in another form, again, or too large is refused, and nothing is kept.
    @Test func malformedDuplicateAndOversizedPutsAreRefused() throws {
        let store = BridgeByteStore(limits: .init(maxEntryBytes: 10, maxTotalBytes: 100, maxEntries: 8))
        #expect(throws: BridgeByteStore.Refusal.badToken) { try store.put(Data([1]), token: "../etc/passwd") }
        let token = BridgeByteStore.makeToken()
        try store.put(Data([1]), token: token)
        #expect(throws: BridgeByteStore.Refusal.duplicateToken) { try store.put(Data([2]), token: token) }
        #expect(throws: BridgeByteStore.Refusal.tooLarge(size: 11, limit: 10)) { try store.put(Data(count: 11)) }
        #expect(store.count == 1 && store.totalBytes == 1)
        #expect(try store.take(token) == Data([1]), "the duplicate did not replace the first bytes")
    }

    /// Hostile: a flood is refused once the byte or entry bound is reached; taking frees room.
    @Test func theStoreStaysWithinItsBounds() throws {
        let store = BridgeByteStore(limits: .init(maxEntryBytes: 40, maxTotalBytes: 100, maxEntries: 4))
        var tokens: [String] = []
        for _ in 0..<2 { tokens.append(try store.put(Data(count: 40))) }
        #expect(throws: BridgeByteStore.Refusal.full) { try store.put(Data(count: 40)) }
        tokens.append(try store.put(Data(count: 20)))
        tokens.append(try store.put(Data(count: 0)))
        #expect(throws: BridgeByteStore.Refusal.full) { try store.put(Data(count: 0)) }
        #expect(store.count == 4 && store.totalBytes == 100)
        _ = try store.take(tokens[0])
        tokens.append(try store.put(Data(count: 40)))
        #expect(store.totalBytes == 100)
    }

    @Test func entriesExpireAndFreeTheirRoom() throws {
        let clock = ByteStoreClock()
        let store = BridgeByteStore(limits: .init(maxEntryBytes: 50, maxTotalBytes: 50, lifetime: .seconds(30)),
                                    clock: { clock.instant })
        let old = try store.put(Data(count: 50))
        clock.advance(.seconds(29))
        #expect(throws: BridgeByteStore.Refusal.full) { try store.put(Data(count: 1)) }
        clock.advance(.seconds(2))
        let fresh = try store.put(Data(count: 50))
        #expect(throws: BridgeByteStore.Refusal.unknownToken) { try store.take(old) }
        #expect(try store.take(fresh).count == 50)
    }

    /// Hostile: a taker that expects another size gets nothing, and the entry is gone.
    @Test func aWrongSizeIsRefusedAndDropsTheEntry() throws {
        let store = BridgeByteStore()
        let token = try store.put(Data(count: 5))
        #expect(throws: BridgeByteStore.Refusal.wrongSize(expected: 6, actual: 5)) { try store.take(token, size: 6) }
        #expect(throws: BridgeByteStore.Refusal.unknownToken) { try store.take(token, size: 5) }
    }

    @Test func removeAllFreesEverything() throws {
        let store = BridgeByteStore()
        let token = try store.put(Data(count: 5))
        store.removeAll()
        #expect(store.count == 0 && store.totalBytes == 0)
        #expect(throws: BridgeByteStore.Refusal.unknownToken) { try store.take(token) }
    }
}

/// Byte params and results through a router bound to a store, without an engine.
struct BytesProbeModule: BridgeModule {
    struct Upload: Codable, Sendable {
        var name: String
        var bytes: BridgeBytes
        var data: Data?
    }

    let name = "probe"
    let allowedOrigins: [OriginPattern] = ["https://app.example.com"]
    var actions: [BridgeAction] {
        [
            Action("size") { (upload: Upload, _) in [upload.bytes.data.count, upload.data?.count ?? -1] },
            Action("raw") { (value: JSONValue, _) in value },
            .immediate("make") { (count: Int, _) in BridgeBytes(Data(repeating: 7, count: count)) },
        ]
    }
}

@Suite("Bridge router resolves and issues byte-channel tokens")
@MainActor
struct BridgeByteChannelRouterTests {
    private func router() async -> (BridgeRouter, BridgeByteStore) {
        let store = BridgeByteStore()
        let router = BridgeRouter(modules: [BytesProbeModule()])
        router.byteBinding = .init(store: store, threshold: 100)
        router.beginDocument()
        _ = await router.receive(Wire.hello(), origin: appOrigin)
        return (router, store)
    }

    @Test func aPostedTokenArrivesAsItsBytesOnce() async throws {
        let (router, store) = await router()
        let token = try store.put(Data(count: 300)), second = try store.put(Data(count: 4))
        let params = #"{"name":"a","bytes":{"$blob":"\#(token)","size":300},"data":{"$blob":"\#(second)","size":4}}"#
        let response = await router.receive(Wire.call(id: 1, action: "size", params: params), origin: appOrigin)
        #expect(Wire.value(response) == [300, 4])
        #expect(store.count == 0)
        // Used once: the same call again names tokens that are gone.
        let again = await router.receive(Wire.call(id: 2, action: "size", params: params), origin: appOrigin)
        #expect(Wire.code(again) == "bad_params")
        #expect(Wire.object(again)?["error"]?["message"]?.stringValue?.contains("no bytes under this token") == true)
    }

    /// Hostile: unknown tokens, wrong sizes, malformed tokens and a router without a store all
    /// fail with `bad_params` and a message that says why.
    @Test(arguments: [
        (#"{"$blob":"00000000000000000000000000000000","size":1}"#, "no bytes under this token"),
        (#"{"$blob":"TOKEN","size":9}"#, "3 bytes were posted, the call says 9"),
        (#"{"$blob":"../x","size":1}"#, "no bytes under this token"),
        (#"{"$blob":"TOKEN"}"#, "missing"),
    ])
    func badTokensAreBadParams(_ bytes: String, _ message: String) async throws {
        let (router, store) = await router()
        let token = try store.put(Data(count: 3))
        let params = #"{"name":"a","bytes":\#(bytes.replacingOccurrences(of: "TOKEN", with: token))}"#
        let response = await router.receive(Wire.call(id: 1, action: "size", params: params), origin: appOrigin)
        #expect(Wire.code(response) == "bad_params")
        #expect(Wire.object(response)?["error"]?["message"]?.stringValue?.contains(message) == true,
                "\(Wire.object(response)?["error"]?["message"] ?? nil)")
    }

    @Test func withoutAStoreATokenIsBadParams() async {
        let router = BridgeRouter(modules: [BytesProbeModule()])
        router.beginDocument()
        _ = await router.receive(Wire.hello(), origin: appOrigin)
        let params = #"{"name":"a","bytes":{"$blob":"00000000000000000000000000000000","size":1}}"#
        let response = await router.receive(Wire.call(id: 1, action: "size", params: params), origin: appOrigin)
        #expect(Wire.object(response)?["error"]?["message"]?.stringValue?.contains("no byte channel") == true)
    }

    @Test func rawJSONParamsSeePostedBytesAsBase64() async throws {
        let (router, store) = await router()
        let token = try store.put(Data([1, 2, 3]))
        let response = await router.receive(Wire.call(id: 1, action: "raw", params: #"[{"$blob":"\#(token)","size":3}]"#), origin: appOrigin)
        #expect(Wire.value(response) == [["$bytes": "AQID"]])
    }

    /// Raw JSON is rebuilt only when its text names a token; a `$blob` key anywhere is found.
    @Test func onlyTextNamingATokenIsSearchedForBytes() {
        func mentions(_ text: String) -> Bool { Array(text.utf8).withUnsafeBufferPointer(BridgeAction.mentionsToken) }
        #expect(mentions(#"{"$blob":"x","size":1}"#))
        #expect(mentions(#"[1,{"a":{"$blob":"x","size":1}}]"#))
        #expect(!mentions(#"{"$bytes":"AQID","blob":"$blobs"}"#))
        #expect(!mentions(#""$blo"#))
        #expect(!mentions(""))
    }

    @Test func largeResultsGoIntoTheStoreAndSmallOnesStayInline() async throws {
        let (router, store) = await router()
        let large = Wire.value(await router.receive(Wire.call(id: 1, action: "make", params: "100"), origin: appOrigin))
        let token = try #require(large?["$blob"]?.stringValue)
        #expect(large?["size"] == 100)
        #expect(try store.take(token) == Data(repeating: 7, count: 100))
        let small = Wire.value(await router.receive(Wire.call(id: 2, action: "make", params: "99"), origin: appOrigin))
        #expect(small?["$bytes"] == .string(Data(repeating: 7, count: 99).base64EncodedString()))
        #expect(store.count == 0)
    }
}

/// The channel's scheme handler on its own: who it answers and how it refuses.
@Suite("Bridge byte channel answers only its page's origin")
@MainActor
struct BridgeByteChannelHandlerTests {
    private let store = BridgeByteStore(limits: .init(maxEntryBytes: 8, maxTotalBytes: 16))
    private var channel: BridgeByteChannel { BridgeByteChannel(store: store, storeID: "s1") { appOrigin } }

    private func request(_ method: String, _ path: String, origin: String? = "https://app.example.com", host: String = "s1",
                         body: Data? = nil) -> SchemeRequest {
        SchemeRequest(url: URL(string: "hybrid-bytes://\(host)/\(path)")!, method: method,
                      headers: origin.map { [("Origin", $0)] } ?? [], body: body)
    }

    @Test func aPostThenAGetMovesTheBytesOnce() async throws {
        let token = BridgeByteStore.makeToken()
        let posted = try await channel.respond(to: request("POST", token, body: Data([1, 2])))
        #expect(posted.status == 200)
        #expect(posted.header("Access-Control-Allow-Origin") == "https://app.example.com")
        let got = try await channel.respond(to: request("GET", token))
        #expect(got.status == 200)
        #expect(got.header("Content-Type") == "application/octet-stream")
        if case .data(let data) = got.body { #expect(data == Data([1, 2])) } else { Issue.record("not a whole body") }
        #expect(try await channel.respond(to: request("GET", token)).status == 404)
    }

    /// Hostile: another origin, no origin, another store's name, a malformed token, an oversized
    /// or missing body, another method: refused, and only the page's origin gets CORS headers.
    @Test func everythingElseIsRefused() async throws {
        let token = try store.put(Data([5]))
        for (origin, status) in [("https://evil.example.net", 403), ("null", 403), ("https://app.example.com:8443", 403)] {
            let response = try await channel.respond(to: request("GET", token, origin: origin))
            #expect(response.status == status)
            #expect(response.header("Access-Control-Allow-Origin") == nil)
        }
        #expect(try await channel.respond(to: request("GET", token, origin: nil)).status == 403)
        #expect(try await channel.respond(to: request("GET", token, host: "s2")).status == 404)
        #expect(try await channel.respond(to: request("POST", "../../x", body: Data([1]))).status == 400)
        #expect(try await channel.respond(to: request("POST", BridgeByteStore.makeToken(), body: Data(count: 9))).status == 413)
        #expect(try await channel.respond(to: request("POST", BridgeByteStore.makeToken())).status == 400)
        #expect(try await channel.respond(to: request("DELETE", token)).status == 405)
        #expect(store.count == 1, "nothing refused was kept, and the token survived")
    }
}

/// Byte feeds (``BridgeByteFeed``): bytes that arrive after they are named, read once as a stream.
@Suite("Bridge byte feeds stream once, bounded")
struct BridgeByteFeedTests {
    /// The page's read gets every byte written, in order, then the end; the feed is taken once
    /// and is not bytes (``BridgeByteStore/take(_:size:)`` does not see it).
    @Test func aFeedIsReadOnceAsItsBytesArrive() async throws {
        let store = BridgeByteStore()
        let feed = try store.openFeed()
        #expect(throws: BridgeByteStore.Refusal.unknownToken) { try store.take(feed.token) }
        let channel = BridgeByteChannel(store: store, storeID: "s1") { BridgeOrigin(url: URL(string: "https://app.example.com")!) }
        let request = SchemeRequest(url: URL(string: "hybrid-bytes://s1/\(feed.token)")!, method: "GET",
                                    headers: [("Origin", "https://app.example.com")], body: nil)
        let response = try await channel.respond(to: request)
        #expect(response.status == 200)
        #expect(response.header("Access-Control-Allow-Origin") == "https://app.example.com")
        guard case .stream(let chunks, let length) = response.body else { Issue.record("not a stream"); return }
        #expect(length == nil)
        #expect(feed.write(Data([1, 2])))
        #expect(feed.write(Data([3])))
        feed.finish()
        #expect(!feed.write(Data([4])), "an ended feed takes nothing more")
        var read = Data()
        for try await chunk in chunks { read.append(chunk) }
        #expect(read == Data([1, 2, 3]))
        #expect(try await channel.respond(to: request).status == 404, "a feed is read once")
        #expect(store.count == 0)
    }

    /// Hostile: a feed nobody reads cannot grow past the store's total bound (the write that would
    /// is refused and the feed fails); a read of a failed feed errors; a feed the document left
    /// behind fails; a feed nobody took expires.
    @Test func feedsAreBoundedAndEndWithTheirDocument() async throws {
        let clock = ByteStoreClock()
        let store = BridgeByteStore(limits: .init(maxEntryBytes: 8, maxTotalBytes: 16, lifetime: .seconds(30)), clock: { clock.instant })
        let full = try store.openFeed()
        #expect(full.write(Data(count: 16)))
        #expect(!full.write(Data(count: 1)), "past the bound")
        #expect(!full.isOpen)
        #expect(full.nextBlocking().1 == .failed, "what waited is dropped, the reader sees a failure")
        let left = try store.openFeed()
        store.removeAll()
        #expect(!left.isOpen)
        #expect(store.takeFeed(left.token) == nil)
        let expiring = try store.openFeed()
        clock.advance(.seconds(31))
        #expect(store.takeFeed(expiring.token) == nil)
        #expect(!expiring.write(Data([1])), "an expired feed takes nothing: the producer stops")
    }

    /// A feed counts as an entry: a store at its most entries opens none.
    @Test func aFullStoreOpensNoFeed() throws {
        let store = BridgeByteStore(limits: .init(maxEntries: 1))
        _ = try store.openFeed()
        #expect(throws: BridgeByteStore.Refusal.full) { try store.openFeed() }
    }
}
