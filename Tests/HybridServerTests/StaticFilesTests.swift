import Foundation
import HybridCore
import HybridFixtures
import HybridServer
import Testing

@Suite("Static files")
struct StaticFilesTests {
    /// A served directory with a page, a script, a binary file, a subdirectory and a secret
    /// next to (not inside) the root.
    final class Fixture {
        let base: URL
        let root: URL
        let server: LoopbackServer
        let client = HTTPClient()

        init() throws {
            base = FileManager.default.temporaryDirectory.appendingPathComponent("hk-static-\(UUID().uuidString)")
            root = base.appendingPathComponent("site")
            let files = FileManager.default
            try files.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
            try Data("<h1>home</h1>".utf8).write(to: root.appendingPathComponent("index.html"))
            try Data("console.log(1)".utf8).write(to: root.appendingPathComponent("app.js"))
            try Data(String(repeating: "hello gzip ", count: 200).utf8).write(to: root.appendingPathComponent("big.txt"))
            try Data("{}".utf8).write(to: root.appendingPathComponent("data.json"))
            try TestRoutes.pattern(count: 1000).write(to: root.appendingPathComponent("blob.bin"))
            try Data("sub index".utf8).write(to: root.appendingPathComponent("sub/index.html"))
            try Data("a b".utf8).write(to: root.appendingPathComponent("sub/with space.txt"))
            try Data("TOP SECRET".utf8).write(to: base.appendingPathComponent("secret.txt"))
            try files.createSymbolicLink(at: root.appendingPathComponent("escape.txt"),
                                         withDestinationURL: base.appendingPathComponent("secret.txt"))
            server = try LoopbackServer()
            server.serveDirectory(root, at: "/static")
        }

        deinit {
            server.stop()
            try? FileManager.default.removeItem(at: base)
        }

        func get(_ path: String, _ headers: [String: String] = [:], method: String = "GET") async throws -> HTTPClient.Reply {
            try await client.send(server.url(path), method: method, headers: headers)
        }
    }

    @Test func servesFilesWithTheirTypes() async throws {
        let site = try Fixture()
        let expectations = [
            "/static/index.html": "text/html; charset=utf-8", "/static/app.js": "text/javascript; charset=utf-8",
            "/static/data.json": "application/json", "/static/blob.bin": "application/octet-stream",
            "/static/sub/with%20space.txt": "text/plain; charset=utf-8",
        ]
        for (path, type) in expectations {
            let reply = try await site.get(path)
            #expect(reply.status == 200, "\(path)")
            #expect(reply.header("Content-Type") == type, "\(path)")
            #expect(reply.header("X-Content-Type-Options") == "nosniff")
        }
        #expect(try await site.get("/static/blob.bin").body == TestRoutes.pattern(count: 1000))
    }

    @Test func directoriesServeTheirIndexAfterASlashRedirect() async throws {
        let site = try Fixture()
        #expect(try await site.get("/static/").text == "<h1>home</h1>")
        let bare = try await site.get("/static/sub")
        #expect(bare.status == 301)
        #expect(bare.header("Location") == "/static/sub/")
        #expect(try await site.get("/static/sub/").text == "sub index")
    }

    @Test func entityTagRevalidationAnswers304() async throws {
        let site = try Fixture()
        let first = try await site.get("/static/app.js")
        let etag = try #require(first.header("ETag"))
        let again = try await site.get("/static/app.js", ["If-None-Match": etag])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(try await site.get("/static/app.js", ["If-None-Match": "W/\(etag)"]).status == 304)
        #expect(try await site.get("/static/app.js", ["If-None-Match": "\"other\""]).status == 200)
        let lastModified = try #require(first.header("Last-Modified"))
        #expect(try await site.get("/static/app.js", ["If-Modified-Since": lastModified]).status == 304)
    }

    @Test func rangesAnswer206Or416() async throws {
        let site = try Fixture()
        let whole = TestRoutes.pattern(count: 1000)
        let middle = try await site.get("/static/blob.bin", ["Range": "bytes=10-19"])
        #expect(middle.status == 206)
        #expect(middle.body == whole.subdata(in: 10..<20))
        #expect(middle.header("Content-Range") == "bytes 10-19/1000")
        let suffix = try await site.get("/static/blob.bin", ["Range": "bytes=-100"])
        #expect(suffix.body == whole.subdata(in: 900..<1000))
        let open = try await site.get("/static/blob.bin", ["Range": "bytes=990-"])
        #expect(open.body == whole.subdata(in: 990..<1000))
        let clamped = try await site.get("/static/blob.bin", ["Range": "bytes=995-5000"])
        #expect(clamped.header("Content-Range") == "bytes 995-999/1000")
        for bad in ["bytes=1000-", "bytes=abc", "bytes=5-2", "bytes=-0", "bytes"] {
            let reply = try await site.get("/static/blob.bin", ["Range": bad])
            #expect(reply.status == 416, "\(bad)")
            #expect(reply.header("Content-Range") == "bytes */1000", "\(bad)")
        }
        #expect(try await site.get("/static/blob.bin", ["Range": "items=1-2"]).status == 200)
        // Several ranges: libsoup turns the whole 200 into a multipart/byteranges 206.
        let multi = try await site.get("/static/blob.bin", ["Range": "bytes=0-1,5-6"])
        #expect(multi.status == 206)
        #expect(multi.header("Content-Type")?.hasPrefix("multipart/byteranges") == true)
    }

    @Test func headHasNoBody() async throws {
        let site = try Fixture()
        let reply = try await site.get("/static/blob.bin", method: "HEAD")
        #expect(reply.status == 200)
        #expect(reply.body.isEmpty)
        #expect(try await site.get("/static/blob.bin", method: "POST").status == 405)
    }

    @Test func traversalNeverLeavesTheRoot() async throws {
        let site = try Fixture()
        for path in ["/static/../secret.txt", "/static/%2e%2e/secret.txt", "/static/%2E%2E/secret.txt",
                     "/static/sub/%2e%2e/%2e%2e/secret.txt", "/static/escape.txt", "/static//etc/passwd",
                     "/static/..%5csecret.txt", "/static/missing.txt"] {
            let reply = try await site.get(path)
            #expect(reply.status == 404, "\(path)")
            #expect(!reply.text.contains("TOP SECRET"), "\(path)")
        }
        // libsoup itself answers 400 to encoded slashes and NUL before any route sees them.
        for path in ["/static/..%2fsecret.txt", "/static/%2e%2e%2fsecret.txt", "/static/%00"] {
            let reply = try await site.get(path)
            #expect(reply.status == 400 || reply.status == 404, "\(path)")
            #expect(!reply.text.contains("TOP SECRET"), "\(path)")
        }
        // A raw request line, which no client library would normalise first.
        let raw = RawHTTP.exchange(port: site.server.port, "GET /static/../../../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(!raw.contains("root:"))
        #expect(RawHTTP.status(of: raw).map { (400...499).contains($0) } ?? true)
    }

    @Test func textIsGzippedWhenAcceptedWithItsOwnValidator() async throws {
        let site = try Fixture()
        let original = try Data(contentsOf: site.root.appendingPathComponent("big.txt"))
        // URLSession asks for gzip and decodes it; the raw wire shows what was sent.
        let decoded = try await site.get("/static/big.txt")
        #expect(decoded.body == original)
        let request = "GET /static/big.txt HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n"
        let wire = RawHTTP.exchange(port: site.server.port, request)
        #expect(wire.contains("Content-Encoding: gzip"))
        #expect(wire.contains("Vary: Accept-Encoding"))
        let length = wire.components(separatedBy: "\r\n").first { $0.hasPrefix("Content-Length:") }
        #expect(length.flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) }.map { $0 < original.count } == true)
        let identity = RawHTTP.exchange(port: site.server.port,
                                        "GET /static/big.txt HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip;q=0\r\nConnection: close\r\n\r\n")
        #expect(!identity.contains("Content-Encoding"))
        let plainTag = identity.components(separatedBy: "\r\n").first { $0.hasPrefix("ETag:") }
        let gzipTag = wire.components(separatedBy: "\r\n").first { $0.hasPrefix("ETag:") }
        #expect(plainTag != nil && gzipTag != nil && plainTag != gzipTag)
        // Binary types and ranges are never compressed.
        let binary = RawHTTP.exchange(port: site.server.port,
                                      "GET /static/blob.bin HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n")
        #expect(!binary.contains("Content-Encoding"))
        let ranged = try await site.get("/static/big.txt", ["Range": "bytes=0-4"])
        #expect(ranged.text == "hello")
    }

    @Test func byteRangeParsing() {
        #expect(ByteRange(header: nil, length: 10) == .whole)
        #expect(ByteRange(header: "bytes=0-0", length: 10) == .partial(0..<1))
        #expect(ByteRange(header: "bytes=-20", length: 10) == .partial(0..<10))
        #expect(ByteRange(header: "bytes=0-", length: 0) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=99999999999999999999-", length: 10) == .unsatisfiable)
    }
}
