import Foundation
import HybridFixtures
import HybridServer
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("LoopbackServer under load and slow clients")
struct ServerLoadTests {
    @Test func concurrentClientsGetNoErrors() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = Data(String(repeating: "<p>load</p>", count: 300).utf8)
        try page.write(to: directory.appendingPathComponent("index.html"))
        let server = try LoopbackServer()
        defer { server.stop() }
        server.serveDirectory(directory, at: "/")
        let clients = 50, requestsEach = 20
        let failures = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<clients {
                group.addTask {
                    let client = HTTPClient()
                    var failed = 0
                    for _ in 0..<requestsEach {
                        let reply = try? await client.send(server.url("/index.html"))
                        if reply?.status != 200 || reply?.body != page { failed += 1 }
                    }
                    return failed
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }

    @Test func stalledClientsDoNotStopTheServer() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/ok") { _ in .text("ok") }
        var stalled: [Int32] = []
        for index in 0..<20 {
            // Half a request line, half a header block, a promised body never sent.
            let partial = ["GET /ok HT", "GET /ok HTTP/1.1\r\nHost: x\r\nX-A:", "POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 99\r\n\r\nab"][index % 3]
            stalled.append(RawHTTP.stall(port: server.port, sending: partial))
        }
        defer { stalled.forEach { close($0) } }
        #expect(stalled.allSatisfy { $0 >= 0 })
        for _ in 0..<5 { #expect(try await HTTPClient().send(server.url("/ok")).text == "ok") }
        stalled.forEach { close($0) }
        stalled.removeAll()
        #expect(try await HTTPClient().send(server.url("/ok")).text == "ok")
    }

    @Test func stopWithRequestsInFlightIsClean() async throws {
        let server = try LoopbackServer()
        let arrived = Locked(false)
        server.route("/slow") { _ in
            arrived.set(true)
            return ServerResponse.text("late").delayed(by: .seconds(5))
        }
        async let pending = try? HTTPClient(timeout: 10).send(server.url("/slow"))
        try await eventually("the request to be in flight") { arrived.value }
        server.stop()
        // stop() did not wait for the held answer: had it, the client would have received it.
        // (How long stopping takes is not asserted here; it is no test's business.)
        #expect(!server.isRunning)
        #expect(await pending?.text != "late")
    }
}
