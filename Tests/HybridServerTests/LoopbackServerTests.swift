import Foundation
import HybridFixtures
import HybridCore
import HybridServer
import Testing

@Suite("LoopbackServer")
struct LoopbackServerTests {
    @Test func servesARouteOnItsOwnThread() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/hello") { request in .text("hi \(request.method) \(request.query("x") ?? "")") }
        #expect(server.port > 0)
        let reply = try await HTTPClient().send(server.url("/hello?x=1"))
        #expect(reply.status == 200)
        #expect(reply.text == "hi GET 1")
        let other = try await HTTPClient().send(server.url("/hello/deeper", host: "localhost"))
        #expect(other.text == "hi GET ")
    }

    @Test func unknownPathIs404AndPrefixMatchesWholeSegments() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/echo") { _ in .text("echo") }
        #expect(try await HTTPClient().send(server.url("/echoes")).status == 404)
        #expect(try await HTTPClient().send(server.url("/nothing")).status == 404)
    }

    @Test func delayedResponseDoesNotBlockOtherRequests() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let slowArrived = Locked(false)
        server.route("/slow") { _ in
            slowArrived.set(true)
            return ServerResponse.text("slow").delayed(by: .seconds(3))
        }
        server.route("/fast") { _ in .text("fast") }
        let slowAnswered = Locked(false)
        @Sendable func fetchSlow() async throws -> HTTPClient.Reply {
            defer { slowAnswered.set(true) }
            return try await HTTPClient().send(server.url("/slow"))
        }
        async let slow = fetchSlow()
        try await eventually("the slow request to reach the server") { slowArrived.value }
        // A raw socket for the fast request: URLSession on Linux shares work between sessions
        // and can itself delay it when other tests run in parallel.
        let fast = RawHTTP.exchange(port: server.port, "GET /fast HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(fast.hasSuffix("fast"))
        // The order of completion, not a time: the fast answer came while the slow one was held.
        #expect(!slowAnswered.value)
        #expect(try await slow.text == "slow")
        #expect(slowAnswered.value)
    }

    @Test func aDeferredRouteIsAnsweredLaterWhileOthersAreServed() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let held = Locked<(@Sendable (ServerResponse) -> Void)?>(nil)
        server.route("/later", deferred: { request, respond in held.set(respond) })
        server.route("/now", deferred: { request, respond in respond(.text("now \(request.method)")) })
        server.route("/fast") { _ in .text("fast") }
        async let later = HTTPClient().send(server.url("/later"))
        try await eventually("the deferred request to reach the server") { held.value != nil }
        // Served while /later is held: an immediate route and a deferred one answered in its handler.
        #expect(RawHTTP.exchange(port: server.port, "GET /fast HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasSuffix("fast"))
        #expect(try await HTTPClient().send(server.url("/now")).text == "now GET")
        let respond = held.value
        Thread.detachNewThread {   // answered from another thread; a second answer is ignored
            respond?(.text("later"))
            respond?(.text("again"))
        }
        #expect(try await later.text == "later")
        // A client that went away before its answer: nothing is written, the server keeps serving.
        held.set(nil)
        let gone = RawHTTP.stall(port: server.port, sending: "GET /later HTTP/1.1\r\nHost: x\r\n\r\n")
        try await eventually("the second deferred request to reach the server") { held.value != nil }
        close(gone)
        try await Task.sleep(nanoseconds: 50_000_000)
        held.value?(.text("too late"))
        #expect(try await HTTPClient().send(server.url("/now")).text == "now GET")
    }

    @Test func pacedBodyArrivesWhole() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let payload = Data((0..<10_000).map { UInt8($0 % 251) })
        server.route("/trickle") { _ in
            ServerResponse(body: payload, pacing: .init(chunkSize: 2_500, interval: .milliseconds(30)))
        }
        let reply = try await HTTPClient().send(server.url("/trickle"))
        #expect(reply.body == payload)
        #expect(reply.header("Content-Length") == "10000")
    }

    @Test func stopIsCleanAndIdempotent() async throws {
        let server = try LoopbackServer()
        server.route("/x") { _ in .text("x") }
        _ = try await HTTPClient().send(server.url("/x"))
        server.stop()
        server.stop()
        #expect(!server.isRunning)
        await #expect(throws: (any Error).self) { try await HTTPClient(timeout: 2).send(server.url("/x")) }
    }

    @Test func portInUseFailsToStart() throws {
        let first = try LoopbackServer()
        defer { first.stop() }
        #expect(throws: HybridError.self) { try LoopbackServer(port: first.port) }
    }
}
