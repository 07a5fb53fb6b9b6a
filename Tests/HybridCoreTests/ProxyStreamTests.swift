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

/// How a proxied response's progress is batched for the page (``ProxyStream``), without a bridge.
@Suite("ProxyStream")
struct ProxyStreamTests {
    static let head = ProxyResponse(status: 200, statusText: "OK", url: "https://a.example/", redirected: false,
                                    headers: [["content-type", "text/plain; charset=utf-8"]], body: Data())

    /// Text chunks are cut on a character boundary, never inside a UTF-8 sequence.
    @Test func textIsCutOnACharacterBoundary() {
        let text = Data("aé€😀".utf8)   // 1 + 2 + 3 + 4 bytes
        #expect(ProxyStream.characterBoundary(text) == text.count)
        #expect(ProxyStream.characterBoundary(text.prefix(2)) == 1)
        #expect(ProxyStream.characterBoundary(text.prefix(5)) == 3)
        #expect(ProxyStream.characterBoundary(text.prefix(9)) == 6)
        #expect(ProxyStream.characterBoundary(Data()) == 0)
    }

    /// A response over before the head has waited its hold goes whole in the reply, as text.
    @Test func aQuickResponseIsOneReply() async throws {
        let stream = ProxyStream()
        stream.events.head(Self.head)
        try stream.events.data(Data("hello".utf8))
        stream.finish()
        #expect(await stream.next() == nil)
        let reply = stream.reply(Self.head)
        #expect(reply.text == "hello")
        #expect(reply.size == 5)
    }

    /// A slow one: the head goes with the bytes so far, later bytes in a data report, the rest
    /// in the reply.
    @Test func aSlowResponseIsStreamed() async throws {
        let stream = ProxyStream()
        stream.events.head(Self.head)
        try stream.events.data(Data("ab".utf8) + Data([0xC3]))   // "ab" and half of "é"
        let first = await stream.next()
        #expect(first?.map(\.phase) == ["head"])
        #expect(first?.first?.text == "ab")
        try stream.events.data(Data([0xA9]) + Data("cd".utf8))
        let second = await stream.next()
        #expect(second?.first?.phase == "data")
        #expect(second?.first?.text == "écd")
        #expect(second?.first?.loaded == 6)
        try stream.events.data(Data("!".utf8))
        stream.finish()
        #expect(stream.reply(Self.head).text == "!")
    }
}

/// A large body continues in a byte feed the page reads from the channel (``ProxyStream``'s feed).
@Suite("ProxyStream feeds")
struct ProxyStreamFeedTests {
    static let head = ProxyResponse(status: 200, statusText: "OK", url: "https://a.example/", redirected: false,
                                    headers: [["content-type", "application/octet-stream"]], body: Data())

    /// Below the threshold bytes go in reports; once it is reached, one `data` report names the feed
    /// and every later byte goes into it; the reply ends it, carrying no body.
    @Test func aBodyMovesIntoAFeedAtTheThreshold() async throws {
        let store = BridgeByteStore()
        let stream = ProxyStream(openFeed: { try? store.openFeed() }, feedThreshold: 8)
        stream.events.head(Self.head)
        try stream.events.data(Data([1, 2, 3]))
        try await Task.sleep(for: .milliseconds(10))
        let first = await stream.next()
        #expect(first?.map(\.phase) == ["head"])
        #expect(first?.first?.chunk?.data == Data([1, 2, 3]))
        try stream.events.data(Data(count: 10))
        let second = await stream.next()
        let reference = try #require(second?.first?.feed)
        #expect(second?.first?.phase == "data" && second?.first?.chunk == nil)
        #expect(second?.first?.loaded == 13)
        let feed = try #require(store.takeFeed(reference.token))
        try stream.events.data(Data([9]))
        stream.finish()
        let reply = stream.reply(Self.head)
        #expect(reply.size == 0)
        #expect(feed.nextBlocking().0 == Data(count: 10) + Data([9]))
        #expect(feed.nextBlocking().1 == .finished)
    }

    /// Hostile: bytes a feed refuses stop the transfer (the sink throws): cancelled when the page's
    /// read went away, `network_error` when the page stopped reading and the feed is full; an
    /// aborted request fails its feed.
    @Test func aLostFeedStopsTheTransferAndAnAbortFailsIt() async throws {
        let store = BridgeByteStore(limits: .init(maxTotalBytes: 64))
        for readerLeaves in [true, false] {
            let stream = ProxyStream(openFeed: { try? store.openFeed() }, feedThreshold: 8)
            stream.events.head(Self.head)
            try await Task.sleep(for: .milliseconds(10))
            _ = await stream.next()
            try stream.events.data(Data(count: 8))
            let next = await stream.next()
            let feed = try #require(next?.first?.feed.flatMap { store.takeFeed($0.token) })
            if readerLeaves {
                feed.cancel()
                #expect(throws: CancellationError.self) { try stream.events.data(Data([1])) }
            } else {
                try stream.events.data(Data(count: 56))
                #expect(throws: HybridError.self) { try stream.events.data(Data([1])) }
            }
        }

        let other = ProxyStream(openFeed: { try? store.openFeed() }, feedThreshold: 8)
        other.events.head(Self.head)
        try await Task.sleep(for: .milliseconds(10))
        _ = await other.next()
        try other.events.data(Data(count: 8))
        let opened = try #require(await other.next()?.first?.feed.flatMap { store.takeFeed($0.token) })
        other.abort()
        #expect(opened.nextBlocking().1 == .failed)
    }
}
