import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import HybridFixtures
import Testing

/// A streamed request body pulled from the page by offset (``ProxyBodySource``), without a
/// bridge: what is asked for, what an answer must be, and what a wrong one does.
@Suite("ProxyBodySource")
struct ProxyBodySourceTests {
    /// The pulls a source made, in order.
    final class Pulls: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [ProxyPull] = []
        func add(_ pull: ProxyPull) { lock.withLock { list.append(pull) } }
        var all: [ProxyPull] { lock.withLock { list } }
    }

    /// A stream handed to a task that reads it.
    final class Box: @unchecked Sendable {
        let stream: InputStream
        init(_ stream: InputStream) { self.stream = stream }
    }

    static let origin = BridgeOrigin(url: URL(string: "https://m.example.com/")!)

    /// The read deadline of tests that are not about it: megabytes made and checked byte by byte
    /// take 20 s in a debug build under AddressSanitizer and over 30 s under ThreadSanitizer.
    static let patient: TimeInterval = 600

    static func source(size: Int64, pulls: Pulls) -> ProxyBodySource {
        ProxyBodySource(size: size, origin: origin, document: 1) { pulls.add($0) }
    }

    static func bytes(_ count: Int, from offset: Int64) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: (Int(offset) + $0) % 251) })
    }

    /// An answer as the router decodes it from the page's JSON (a failure to decode fails the test).
    static func decoded(_ json: String) -> ProxySlice {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .custom(BridgeBytes.decodeData)
        do { return try decoder.decode(ProxySlice.self, from: Data(json.utf8)) } catch {
            Issue.record("\(error)")
            return ProxySlice(id: "", seq: -1, offset: 0, data: nil)
        }
    }

    static func answer(_ pull: ProxyPull) -> ProxySlice {
        ProxySlice(id: pull.id, seq: pull.seq, offset: pull.offset, data: bytes(pull.length, from: pull.offset))
    }

    /// Reads the whole stream on a thread of its own (reads block until the page answers).
    static func readAll(_ stream: InputStream) async -> (Data, Int) {
        let box = Box(stream)
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let stream = box.stream
                stream.open()
                var out = Data()
                var buffer = [UInt8](repeating: 0, count: 65_536)
                var last = 0
                while stream.hasBytesAvailable {
                    last = stream.read(&buffer, maxLength: buffer.count)
                    if last <= 0 { break }
                    out.append(buffer, count: last)
                }
                continuation.resume(returning: (out, last))
            }
        }
    }

    /// Answers every pull as it comes, until `stop` says so.
    static func answering(_ source: ProxyBodySource, _ pulls: Pulls, _ change: @escaping @Sendable (ProxySlice) -> ProxySlice = { $0 }) -> Task<Void, Never> {
        Task.detached {
            var answered = 0
            while !Task.isCancelled {
                let all = pulls.all
                while answered < all.count {
                    try? source.deliver(change(answer(all[answered])))
                    answered += 1
                }
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    @Test func aBodyIsPulledInBoundedSlicesAndArrivesWhole() async throws {
        let pulls = Pulls()
        let size = Int64(ProxyBodySource.sliceBytes * 5 + 123)
        let source = Self.source(size: size, pulls: pulls)
        let stream = source.makeStream(deadline: .now + Self.patient)
        // Asked at once: the window, no more.
        #expect(pulls.all.count == ProxyBodySource.window)
        let answers = Self.answering(source, pulls)
        defer { answers.cancel() }
        let (data, _) = await Self.readAll(stream)
        // Compared as one Bool: a failing `==` on megabytes of Data makes Swift Testing diff them
        // (under ThreadSanitizer that diff ran for over 20 minutes).
        let whole = data == Self.bytes(Int(size), from: 0)
        #expect(whole, "read \(data.count) of \(size) bytes, or the wrong ones")
        #expect(pulls.all.map(\.offset) == (0..<6).map { Int64($0 * ProxyBodySource.sliceBytes) })
        #expect(pulls.all.last?.length == 123)
        #expect(source.failure == nil)
    }

    @Test func aReplayStartsAgainAndIgnoresTheOldStreamsAnswers() async throws {
        let pulls = Pulls()
        let size = Int64(ProxyBodySource.sliceBytes * 3)
        let source = Self.source(size: size, pulls: pulls)
        _ = source.makeStream(deadline: .now + Self.patient)
        let stale = pulls.all
        let stream = source.makeStream(deadline: .now + Self.patient)
        #expect(pulls.all.count == stale.count * 2)
        #expect(pulls.all[stale.count].offset == 0)
        // Answers to the first stream's pulls are no longer wanted, and are no error.
        for pull in stale { try source.deliver(Self.answer(pull)) }
        let answers = Self.answering(source, pulls)
        defer { answers.cancel() }
        let (data, _) = await Self.readAll(stream)
        let whole = data == Self.bytes(Int(size), from: 0)
        #expect(whole, "read \(data.count) of \(size) bytes, or the wrong ones")
        #expect(source.failure == nil)
    }

    /// Each way an answer can be wrong fails the body: the stream stops with an error
    /// (`-1`, so the server never gets a whole body) and the failure is `invalid_body`.
    @Test(arguments: ["offset", "base64", "token", "more", "fewer", "unasked", "error"])
    func aWrongAnswerFailsTheBody(_ wrong: String) async throws {
        let pulls = Pulls()
        let size = Int64(ProxyBodySource.sliceBytes * 2 + 10)
        let source = Self.source(size: size, pulls: pulls)
        let stream = source.makeStream(deadline: .now + Self.patient)
        let answers = Self.answering(source, pulls) { slice in
            // The last slice is the wrong one: everything before it was sent.
            guard slice.offset == Int64(ProxyBodySource.sliceBytes * 2) else { return slice }
            var bad = slice
            switch wrong {
            case "offset": bad.offset += 1
            case "base64": bad = Self.decoded(#"{"id":"\#(slice.id)","seq":\#(slice.seq),"offset":\#(slice.offset),"data":"@@not base64@@"}"#)
            case "token": bad = Self.decoded(#"{"id":"\#(slice.id)","seq":\#(slice.seq),"offset":\#(slice.offset),"data":{"$blob":"\#(String(repeating: "a", count: 32))","size":10}}"#)
            case "more": bad.data = Self.bytes(11, from: slice.offset)
            case "fewer": bad.data = Self.bytes(4, from: slice.offset)
            case "unasked": bad.seq += 7
            default: bad.data = nil; bad.error = "NotReadableError"
            }
            return bad
        }
        defer { answers.cancel() }
        let (data, last) = await Self.readAll(stream)
        #expect(last == -1)
        // The slices before the wrong one may have gone out; the wrong one and what follows never.
        #expect(data.count <= ProxyBodySource.sliceBytes * 2)
        guard case .invalidBody = source.failure else { Issue.record("failure: \(String(describing: source.failure))"); return }
        #expect(HybridError.network(source.failure!).code == "invalid_body")
    }

    /// The read is blocked when the body is cancelled, with a deadline an hour away: only the
    /// cancel can end it (the suite's time limit fails the test otherwise).
    @Test(.timeLimit(.minutes(1))) func aCancelledBodyStopsItsReadsAndRefusesAnswers() async throws {
        let pulls = Pulls()
        let source = Self.source(size: 10, pulls: pulls)
        let stream = source.makeStream(deadline: .now + 3600)
        let box = Box(stream)
        let reading = Task { await Self.readAll(box.stream) }
        try await eventually("the read waits for the page") { source.blockedReads == 1 }
        source.cancel()
        let (data, last) = await reading.value
        #expect(data.isEmpty && last == -1)
        #expect(throws: HybridError.self) { try source.deliver(Self.answer(pulls.all[0])) }
    }

    @Test func aPageThatNeverAnswersTimesOut() async throws {
        let source = Self.source(size: 10, pulls: Pulls())
        source.timeoutMilliseconds = 50
        let (_, last) = await Self.readAll(source.makeStream(deadline: .now + 0.05))
        #expect(last == -1)
        #expect(source.failure.map { HybridError.network($0).code } == "timeout")
    }

    /// Only the document that started the request can answer, even with the body's name.
    @Test func answersAreBoundToTheirDocumentAndOrigin() throws {
        let registry = ProxyBodyRegistry()
        let pulls = Pulls()
        let source = Self.source(size: 10, pulls: pulls)
        registry.add(source)
        _ = source.makeStream(deadline: .now + Self.patient)
        let slice = Self.answer(pulls.all[0])
        let other = BridgeOrigin(url: URL(string: "https://evil.example/")!)
        for (origin, document) in [(other, 1), (Self.origin, 2), (Self.origin, nil)] as [(BridgeOrigin?, Int?)] {
            #expect(throws: HybridError.self) { try registry.deliver(slice, origin: origin, document: document) }
        }
        var forged = slice
        forged.id = String(repeating: "0", count: 32)
        #expect(throws: HybridError.self) { try registry.deliver(forged, origin: Self.origin, document: 1) }
        // None of those touched the body.
        #expect(source.failure == nil)
        try registry.deliver(slice, origin: Self.origin, document: 1)
        registry.remove(source)
        #expect(registry.count == 0)
        #expect(throws: HybridError.self) { try registry.deliver(slice, origin: Self.origin, document: 1) }
    }

    /// The limit holds for a declared size, before the page is asked for anything.
    @Test func aDeclaredSizeOverTheLimitIsRefusedBeforeAnyPull() async throws {
        let policy = try ProxyPolicy(requests: ["http://127.0.0.1:1/*"], maxBodyBytes: 1_000)
        let proxy = RequestProxy(policy: policy, jar: nil)
        let pulls = Pulls()
        let source = Self.source(size: 5_000, pulls: pulls)
        var request = ProxyRequest(url: "http://127.0.0.1:1/up", method: "POST")
        request.bodySize = 5_000
        do {
            _ = try await proxy.perform(request, origin: nil, progress: nil, events: nil, body: source)
            Issue.record("sent")
        } catch let error as HybridError {
            #expect(error.code == "payload_too_large")
        }
        #expect(pulls.all.isEmpty)
        // A declared body with no page to pull it from is refused too.
        request.bodySize = 10
        await #expect(throws: HybridError.self) { _ = try await proxy.perform(request) }
    }
}

/// A body the page posts whole to a sink (``BridgeByteSink``, Blink's loopback channel) instead of
/// answering pulls.
@Suite("ProxyBodySource sinks")
struct ProxyBodySourceSinkTests {
    typealias T = ProxyBodySourceTests

    /// Opens sinks in a store of its own, as the bridge does where the channel takes streamed posts.
    static func source(size: Int64, pulls: T.Pulls, store: BridgeByteStore) -> ProxyBodySource {
        ProxyBodySource(size: size, origin: T.origin, document: 1,
                        openSink: { sink in (try? store.openSink(sink)).map({ BridgeByteReference(.sink, token: $0) }) }) { pulls.add($0) }
    }

    /// The first stream asks one pull, offering the sink; a post's blocks then make the body, in
    /// order, with no further pull; the sink is read once.
    @Test func aPostedBodyArrivesWithoutPulls() async throws {
        let pulls = T.Pulls(), store = BridgeByteStore()
        let size = Int64(ProxyBodySource.sliceBytes * 3 + 77)
        let source = Self.source(size: size, pulls: pulls, store: store)
        let stream = source.makeStream(deadline: .now + T.patient)
        #expect(pulls.all.count == 1)
        let token = try #require(pulls.all.first?.sink?.token)
        let sink = try #require(store.takeSink(token))
        #expect(store.takeSink(token) == nil, "a sink is taken once")
        let posting = Task.detached {
            var offset: Int64 = 0
            while offset < size {
                let count = Int(min(300_000, size - offset))
                guard sink.receive(T.bytes(count, from: offset)) else { return false }
                offset += Int64(count)
            }
            sink.end(complete: true)
            return true
        }
        let (data, _) = await T.readAll(stream)
        #expect(await posting.value)
        let whole = data == T.bytes(Int(size), from: 0)
        #expect(whole, "read \(data.count) of \(size) bytes, or the wrong ones")
        #expect(pulls.all.count == 1)
        #expect(source.failure == nil)
    }

    /// A page that answers the offered pull with its slice goes on in slices; a replay never
    /// offers a sink again.
    @Test func aPageThatAnswersGoesOnInSlices() async throws {
        let pulls = T.Pulls(), store = BridgeByteStore()
        let size = Int64(ProxyBodySource.sliceBytes * 2 + 5)
        let source = Self.source(size: size, pulls: pulls, store: store)
        let stream = source.makeStream(deadline: .now + T.patient)
        let answers = T.answering(source, pulls)
        defer { answers.cancel() }
        let (data, _) = await T.readAll(stream)
        #expect(data.count == Int(size))
        #expect(pulls.all.count == 3)
        #expect(pulls.all.dropFirst().allSatisfy { $0.sink == nil })
        let replay = source.makeStream(deadline: .now + T.patient)
        _ = replay
        #expect(pulls.all.count == 6, "the replay asks a window of slices")
        #expect(pulls.all.dropFirst(3).allSatisfy { $0.sink == nil })
    }

    /// Hostile: a post longer than the declared size, or one that ends short, fails the body; a
    /// post to a sink after the page answered in slices, or after a replay, is refused.
    @Test func aWrongPostFailsTheBody() async throws {
        for (blocks, why) in [([6, 6], "more than"), ([4], "ended at")] {
            let pulls = T.Pulls(), store = BridgeByteStore()
            let source = Self.source(size: 10, pulls: pulls, store: store)
            let stream = source.makeStream(deadline: .now + T.patient)
            let sink = try #require(pulls.all.first?.sink.flatMap { store.takeSink($0.token) })
            var offset: Int64 = 0
            for count in blocks where sink.receive(T.bytes(count, from: offset)) { offset += Int64(count) }
            sink.end(complete: false)
            let (_, last) = await T.readAll(stream)
            #expect(last == -1)
            #expect(source.failure.map { "\($0)".contains(why) } == true, "\(String(describing: source.failure))")
        }
        let pulls = T.Pulls(), store = BridgeByteStore()
        let source = Self.source(size: 10, pulls: pulls, store: store)
        _ = source.makeStream(deadline: .now + T.patient)
        let sink = try #require(pulls.all.first?.sink.flatMap { store.takeSink($0.token) })
        try source.deliver(T.answer(try #require(pulls.all.first)))
        #expect(!sink.receive(Data([1])), "the page answered in slices")
        _ = source.makeStream(deadline: .now + T.patient)
        #expect(!sink.receive(Data([1])), "a replay's stream")
    }
}
