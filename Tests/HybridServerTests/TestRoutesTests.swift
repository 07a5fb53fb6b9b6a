import Foundation
import HybridFixtures
import HybridServer
import Testing

@Suite("Test routes")
struct TestRoutesTests {
    final class Fixture {
        let server: LoopbackServer
        let client = HTTPClient()
        init() throws {
            server = try LoopbackServer()
            TestRoutes.install(on: server)
        }
        deinit { server.stop() }
        func send(_ path: String, host: String? = nil, method: String = "GET", headers: [String: String] = [:],
                  body: Data? = nil) async throws -> HTTPClient.Reply {
            try await client.send(server.url(path, host: host), method: method, headers: headers, body: body)
        }
        func decode<T: Decodable>(_ type: T.Type, _ reply: HTTPClient.Reply) throws -> T {
            try JSONDecoder().decode(type, from: reply.body)
        }
    }

    @Test func echoReturnsMethodHeadersAndBody() async throws {
        let site = try Fixture()
        for method in ["POST", "PUT", "PATCH", "DELETE"] {
            let reply = try await site.send("/echo/x?a=1&b=%20", method: method, headers: ["X-Token": "t1"],
                                            body: Data("héllo".utf8))
            let echo = try site.decode(EchoReply.self, reply)
            #expect(echo.method == method)
            #expect(echo.path == "/echo/x")
            #expect(echo.query == "a=1&b=%20")
            #expect(echo.header("x-token") == "t1")
            #expect(echo.body == "héllo")
            #expect(echo.bodyLength == 6)
        }
        let binary = try site.decode(EchoReply.self, try await site.send("/echo", method: "POST", body: Data([0xff, 0x00, 0xfe])))
        #expect(binary.bodyBase64 == "/wD+")
        #expect(try site.decode(EchoReply.self, try await site.send("/echo")).method == "GET")
    }

    @Test func largeUploadIsCheckedByHash() async throws {
        let site = try Fixture()
        let payload = TestRoutes.pattern(count: 8 << 20)
        let echo = try site.decode(EchoReply.self, try await site.send("/echo", method: "POST", body: payload))
        #expect(echo.bodyLength == payload.count)
        #expect(echo.body == nil && echo.bodyBase64 == nil)
        #expect(echo.bodySHA256 == TestRoutes.sha256Hex(payload))
        #expect(TestRoutes.sha256Hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func setCookieHeadersAreSentSeparately() async throws {
        let site = try Fixture()
        let raw = "sid=1; Path=/; HttpOnly; Expires=Wed, 21 Oct 2037 07:28:00 GMT"
        let reply = try await site.send("/cookies/set?header=\(raw.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&a=2")
        let set = try site.decode(CookieSetReply.self, reply)
        #expect(set.setCookie == [raw, "a=2; Path=/"])
        // URLSession folds repeated fields; the raw wire shows one Set-Cookie line per cookie,
        // and the comma inside Expires never splits a cookie.
        let wire = RawHTTP.exchange(port: site.server.port, "GET /cookies/standard HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let lines = wire.components(separatedBy: "\r\n").filter { $0.lowercased().hasPrefix("set-cookie:") }
        #expect(lines.count == TestRoutes.standardCookies.count)
        #expect(lines.contains("Set-Cookie: expired=e1; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT"))
    }

    @Test func cookieEchoAndDelete() async throws {
        let site = try Fixture()
        let echo = try site.decode(CookieEchoReply.self, try await site.send("/cookies/echo", host: "localhost",
                                                                            headers: ["Cookie": "a=1; b=x=y"]))
        #expect(echo.header == "a=1; b=x=y")
        #expect(echo.cookies == [["a", "1"], ["b", "x=y"]])
        #expect(echo.host == "localhost")
        #expect(try site.decode(CookieEchoReply.self, try await site.send("/cookies/echo")).header == nil)
        let deleted = try await site.send("/cookies/delete?name=a&path=/p")
        #expect(deleted.header("Set-Cookie") == "a=; Path=/p; Max-Age=0")
        let page = try await site.send("/cookies/page", headers: ["Cookie": "x=</script>"])
        #expect(page.text.contains("\\u003c"))
        #expect(!page.text.contains("x=</script>"))
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
    }

    @Test func redirectsCrossHostsChainAndLoop() async throws {
        let site = try Fixture()
        let cross = try await site.send("/redirect/cross?to=/echo")
        #expect(cross.status == 302)
        #expect(cross.header("Location") == "http://localhost:\(site.server.port)/echo")
        let back = try await site.send("/redirect/cross", host: "localhost")
        #expect(back.header("Location") == "http://127.0.0.1:\(site.server.port)/cookies/echo")
        let following = HTTPClient(followRedirects: true)
        let end = try await following.send(site.server.url("/redirect/chain?n=3&to=/echo"))
        #expect(try site.decode(EchoReply.self, end).path == "/echo")
        let loop = try await site.send("/redirect/loop?n=4")
        #expect(loop.header("Location") == "/redirect/loop?n=5")
        await #expect(throws: (any Error).self) { try await following.send(site.server.url("/redirect/loop")) }
        #expect(try await site.send("/redirect?to=/x&status=307").status == 307)
        #expect(try await site.send("/cookies/set?a=1&redirect=/cookies/echo").header("Location") == "/cookies/echo")
    }

    @Test func slowAndTrickledResponses() async throws {
        let site = try Fixture()
        let start = ContinuousClock.now
        #expect(try await site.send("/slow?ms=300").text == "slow")
        #expect(ContinuousClock.now - start >= .milliseconds(300))
        let trickle = try await site.send("/slow/trickle?bytes=20000&chunk=5000&interval=20")
        #expect(trickle.body == TestRoutes.pattern(count: 20000))
    }

    @Test func largeAndBinaryBodies() async throws {
        let site = try Fixture()
        let large = try await site.send("/bytes?n=\(5 << 20)")
        #expect(large.body == TestRoutes.pattern(count: 5 << 20))
        let all = try await site.send("/bytes/all")
        #expect(all.body == Data((0...255).map { UInt8($0) }))
        #expect(all.header("Content-Type") == "application/octet-stream")
    }

    @Test func multipartFormsAreParsed() async throws {
        let site = try Fixture()
        let boundary = "----hk\(UUID().uuidString)"
        let file = TestRoutes.pattern(count: 3000)
        var body = Data()
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nhello wörld\r\n".utf8))
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8))
        body.append(file)
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        let reply = try await site.send("/multipart", method: "POST",
                                        headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"], body: body)
        let form = try site.decode(MultipartReply.self, reply)
        #expect(form.fields == ["title": "hello wörld"])
        #expect(form.files == [.init(name: "upload", filename: "a.bin", contentType: "application/octet-stream",
                                     size: 3000, sha256: TestRoutes.sha256Hex(file))])
        #expect(try await site.send("/multipart", method: "POST", body: Data("x".utf8)).status == 400)
    }

    @Test func statusAndHeaders() async throws {
        let site = try Fixture()
        #expect(try await site.send("/status?code=418").status == 418)
        #expect(try await site.send("/status?code=9999").status == 400)
        #expect(try await site.send("/headers?X-One=1").header("X-One") == "1")
    }

    @Test func malformedRequestsGet4xxAndTheServerKeepsServing() async throws {
        let site = try Fixture()
        let port = site.server.port
        let hostile: [String] = [
            "GARBAGE\r\n\r\n",
            "GET / HTTP/9.9\r\nHost: x\r\n\r\n",
            "GET /echo HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde",
            "GET /\u{1}\u{2} HTTP/1.1\r\nHost: x\r\n\r\n",
        ]
        for request in hostile {
            let status = RawHTTP.status(of: RawHTTP.exchange(port: port, request))
            // 505 is the precise answer to an unknown HTTP version.
            #expect(status.map { (400...499).contains($0) || $0 == 505 } == true, "\(request.prefix(40)) → \(String(describing: status))")
            #expect(try await site.send("/status?code=204").status == 204)
        }
        // libsoup closes the connection without an answer when a header block exceeds its limit,
        // and a client that hangs up mid-body gets nothing; either way the server keeps serving.
        for request in ["GET /echo HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 200_000))\r\n\r\n",
                        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nshort"] {
            let status = RawHTTP.status(of: RawHTTP.exchange(port: port, request))
            #expect(status.map { (400...499).contains($0) } ?? true)
            #expect(try await site.send("/status?code=204").status == 204)
        }
    }
}
