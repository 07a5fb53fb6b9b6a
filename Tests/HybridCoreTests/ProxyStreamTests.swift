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
    @Test func aQuickResponseIsOneReply() async {
        let stream = ProxyStream()
        stream.events.head(Self.head)
        stream.events.data(Data("hello".utf8))
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
        stream.events.data(Data("ab".utf8) + Data([0xC3]))   // "ab" and half of "é"
        let first = await stream.next()
        #expect(first?.map(\.phase) == ["head"])
        #expect(first?.first?.text == "ab")
        stream.events.data(Data([0xA9]) + Data("cd".utf8))
        let second = await stream.next()
        #expect(second?.first?.phase == "data")
        #expect(second?.first?.text == "écd")
        #expect(second?.first?.loaded == 6)
        stream.events.data(Data("!".utf8))
        stream.finish()
        #expect(stream.reply(Self.head).text == "!")
    }
}
