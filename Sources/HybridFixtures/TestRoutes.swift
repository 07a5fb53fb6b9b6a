#if canImport(CWebKitGTK)
import CWebKitGTK
import HybridServer
import Foundation

/// The routes the network tests need, installable on any ``LoopbackServer``:
///
/// | Path | Answer |
/// |---|---|
/// | `/echo?delay=MS` | ``EchoReply``: method, path, query, headers, body (any method), after `delay` ms if given |
/// | `/cookies/set?header=RAW&…&name=value&redirect=URL` | one `Set-Cookie` per `header` (verbatim) and per other pair (`name=value; Path=/`), then JSON or a 302 |
/// | `/cookies/standard` | the ``standardCookies`` (HttpOnly, Secure, Path, Max-Age, expired) |
/// | `/cookies/delete?name=N&path=/` | `N=; Path=/; Max-Age=0` |
/// | `/cookies/echo` | ``CookieEchoReply`` |
/// | `/cookies/page` | an HTML page that records the `Cookie` header it was loaded with in `window.serverCookieHeader` |
/// | `/redirect?to=URL&status=302` | a redirect anywhere |
/// | `/redirect/cross?to=/path` | 302 to the same path on the *other* host (`127.0.0.1` ⇄ `localhost`) |
/// | `/redirect/chain?n=3&to=/echo` | `n` hops, then `to` |
/// | `/redirect/loop` | redirects to itself forever |
/// | `/slow?ms=500` | `slow` after a delay (the server keeps serving others) |
/// | `/slow/trickle?bytes=N&chunk=K&interval=MS` | N pattern bytes, K at a time |
/// | `/bytes?n=N` | N bytes of ``pattern(count:)`` (`application/octet-stream`) |
/// | `/bytes/all` | the 256 byte values in order |
/// | `/multipart` | ``MultipartReply`` (400 when the body is not multipart) |
/// | `/status?code=418` | that status |
/// | `/headers?Name=Value&…` | those response headers (repeatable) |
/// | `/trickle?bytes=N&chunk=K&interval=MS&type=T&delay=MS` | N bytes of ASCII text (`abc…z0…9`), K at a time, as `T` (`text/plain` by default) |
/// | `/raw?hex=HEX&type=T&status=S` | exactly those bytes, with `Content-Type: T` only when `type` is given |
/// | `/cors?key=K&acao=…&acac=…&acam=…&acah=…&aceh=…&maxage=…&pfstatus=S&status=S` | a CORS endpoint: `OPTIONS` answers as a preflight (`pfstatus`, 200 by default: libsoup closes the connection after a 204) with the `Access-Control-Allow-*` headers the query names; other methods get ``EchoReply`` with `Access-Control-Allow-Origin`/`-Credentials`/`-Expose-Headers` and `X-Custom: custom`, `X-Other: other`. A `pf_` prefix (`pf_acao=…`) sets a value for the preflight only, an `ac_` prefix for the actual response only. Each request is logged under `key` |
/// | `/cors/log?key=K` | ``CORSLogEntry`` list for `key`: what `/cors` received (method, `Origin`, `Access-Control-Request-*`, `Cookie`), in order |
public enum TestRoutes {
    /// Bodies up to this size are echoed back in `/echo`; larger ones only by length and hash.
    public static let echoBodyLimit = 1 << 20

    /// The cookies `/cookies/standard` sets, as `Set-Cookie` values.
    public static let standardCookies = [
        "plain=p1; Path=/",
        "http_only=h1; Path=/; HttpOnly",
        "secure=s1; Path=/; Secure",
        "scoped=c1; Path=/cookies/scoped",
        "persistent=m1; Path=/; Max-Age=3600",
        "expired=e1; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
    ]

    /// Installs every route on `server`.
    public static func install(on server: LoopbackServer) {
        server.route("/echo", echo)
        server.route("/cookies/set", setCookies)
        server.route("/cookies/standard") { _ in
            var response = ServerResponse.json(CookieSetReply(setCookie: standardCookies))
            for header in standardCookies { response.headers.add("Set-Cookie", header) }
            return response
        }
        server.route("/cookies/delete") { request in
            let name = request.query("name") ?? "plain"
            let header = "\(name)=; Path=\(request.query("path") ?? "/"); Max-Age=0"
            return ServerResponse.json(CookieSetReply(setCookie: [header])).adding(header: "Set-Cookie", header)
        }
        server.route("/cookies/echo") { .json(cookieEcho($0)) }
        server.route("/cookies/page", cookiePage)
        server.route("/redirect", redirect)
        server.route("/slow", slow)
        server.route("/bytes", bytes)
        server.route("/multipart", multipart)
        server.route("/status") { request in
            let code = request.query("code").flatMap(Int.init) ?? 200
            return .status((100...599).contains(code) ? code : 400)
        }
        server.route("/trickle", trickle)
        server.route("/raw", raw)
        server.route("/cors", cors)
        server.route("/headers") { request in
            var response = ServerResponse.text("headers set\n")
            for item in request.queryItems { response.headers.add(item.name, item.value) }
            return response
        }
    }

    /// Deterministic bytes (`i % 251`, so no power-of-two period hides an offset error).
    public static func pattern(count: Int) -> Data {
        let period = Data((0..<251).map { UInt8($0) })
        var data = Data(capacity: max(0, count))
        while data.count < count { data.append(period.prefix(count - data.count)) }
        return data
    }

    /// Lower-case hex SHA-256 (GLib's implementation).
    public static func sha256Hex(_ data: Data) -> String {
        let digest = data.withUnsafeBytes { raw in
            g_compute_checksum_for_data(G_CHECKSUM_SHA256, raw.baseAddress?.assumingMemoryBound(to: guchar.self), gsize(raw.count))
        }
        defer { g_free(digest) }
        return digest.map { String(cString: $0) } ?? ""
    }

    // MARK: Routes

    static func echo(_ request: ServerRequest) -> ServerResponse {
        let small = request.body.count <= echoBodyLimit
        let text = small ? String(data: request.body, encoding: .utf8) : nil
        let reply = EchoReply(
            method: request.method, path: request.path, query: request.rawQuery,
            headers: request.headers.fields.map { [$0.name, $0.value] },
            body: text, bodyBase64: small && text == nil ? request.body.base64EncodedString() : nil,
            bodyLength: request.body.count, bodySHA256: sha256Hex(request.body))
        let response = ServerResponse.json(reply, status: request.query("status").flatMap(Int.init) ?? 200)
        guard let delay = request.query("delay").flatMap(Int.init), delay > 0 else { return response }
        return response.delayed(by: .milliseconds(min(delay, 600_000)))
    }

    static func setCookies(_ request: ServerRequest) -> ServerResponse {
        var headers: [String] = []
        for item in request.queryItems {
            switch item.name {
            case "header": headers.append(item.value)
            case "redirect": continue
            default: headers.append("\(item.name)=\(item.value); Path=/")
            }
        }
        var response = request.query("redirect").map { ServerResponse.redirect(to: $0) }
            ?? .json(CookieSetReply(setCookie: headers))
        for header in headers { response.headers.add("Set-Cookie", header) }
        return response
    }

    static func cookieEcho(_ request: ServerRequest) -> CookieEchoReply {
        let values = request.headers.values(for: "Cookie")
        let pairs = values.flatMap { $0.split(separator: ";") }.compactMap { pair -> [String]? in
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return nil }
            let parts = trimmed.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return [String(parts[0]), parts.count > 1 ? String(parts[1]) : ""]
        }
        return CookieEchoReply(header: values.isEmpty ? nil : values.joined(separator: "; "), cookies: pairs, host: request.hostName)
    }

    static func cookiePage(_ request: ServerRequest) -> ServerResponse {
        let echo = cookieEcho(request)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // JSON is valid JavaScript; escaping `<` keeps a hostile cookie from closing the script.
        let json = String(decoding: (try? encoder.encode(echo)) ?? Data("null".utf8), as: UTF8.self)
            .replacingOccurrences(of: "<", with: "\\u003c")
        return .html("""
            <!doctype html><html><head><meta charset="utf-8"><title>cookies</title>
            <script>window.serverCookies = \(json); window.serverCookieHeader = window.serverCookies.header;</script>
            </head><body><pre id="cookies"></pre>
            <script>document.getElementById('cookies').textContent = document.cookie;</script></body></html>
            """)
    }

    static func redirect(_ request: ServerRequest) -> ServerResponse {
        let status = request.query("status").flatMap(Int.init).flatMap { (300...399).contains($0) ? $0 : nil } ?? 302
        switch request.path {
        case "/redirect/cross":
            let other = request.hostName == "localhost" ? "127.0.0.1" : "localhost"
            let port = request.headers["Host"]?.split(separator: ":").last.map(String.init) ?? "80"
            return .redirect(to: "http://\(other):\(port)\(request.query("to") ?? "/cookies/echo")", status: status)
        case "/redirect/chain":
            let remaining = request.query("n").flatMap(Int.init) ?? 1
            let target = request.query("to") ?? "/echo"
            guard remaining > 0 else { return .redirect(to: target, status: status) }
            let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
            return .redirect(to: "/redirect/chain?n=\(remaining - 1)&to=\(encoded)", status: status)
        case "/redirect/loop":
            let hop = (request.query("n").flatMap(Int.init) ?? 0) + 1
            return .redirect(to: "/redirect/loop?n=\(hop)", status: status)
        default:
            guard let target = request.query("to") else { return .text("missing ?to=\n", status: 400) }
            return .redirect(to: target, status: status)
        }
    }

    static func slow(_ request: ServerRequest) -> ServerResponse {
        if request.path == "/slow/trickle" {
            let count = min(request.query("bytes").flatMap(Int.init) ?? 65_536, 1 << 28)
            let chunk = request.query("chunk").flatMap(Int.init) ?? 4_096
            let interval = request.query("interval").flatMap(Int.init) ?? 50
            return ServerResponse(headers: ["Content-Type": "application/octet-stream"], body: pattern(count: count),
                                  pacing: .init(chunkSize: chunk, interval: .milliseconds(interval)))
        }
        let milliseconds = min(request.query("ms").flatMap(Int.init) ?? 500, 600_000)
        return ServerResponse.text("slow").delayed(by: .milliseconds(milliseconds))
    }

    static func trickle(_ request: ServerRequest) -> ServerResponse {
        let count = min(request.query("bytes").flatMap(Int.init) ?? 4_096, 1 << 28)
        let chunk = max(request.query("chunk").flatMap(Int.init) ?? 1_024, 1)
        let interval = request.query("interval").flatMap(Int.init) ?? 50
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let body = Data((0..<count).map { letters[$0 % letters.count] })
        var response = ServerResponse(headers: ["Content-Type": request.query("type") ?? "text/plain"], body: body,
                                      pacing: .init(chunkSize: chunk, interval: .milliseconds(interval)))
        if let delay = request.query("delay").flatMap(Int.init), delay > 0 { response = response.delayed(by: .milliseconds(delay)) }
        return response
    }

    static func raw(_ request: ServerRequest) -> ServerResponse {
        let hex = Array((request.query("hex") ?? "").utf8)
        var bytes = Data()
        var index = 0
        while index + 1 < hex.count {
            if let byte = UInt8(String(decoding: hex[index...index + 1], as: UTF8.self), radix: 16) { bytes.append(byte) }
            index += 2
        }
        var headers = HTTPHeaders()
        if let type = request.query("type") { headers.add("Content-Type", type) }
        let status = request.query("status").flatMap(Int.init).flatMap { (200...599).contains($0) ? $0 : nil } ?? 200
        return ServerResponse(status: status, headers: headers, body: bytes)
    }

    /// What `/cors` logs of each request it receives.
    public struct CORSLogEntry: Codable, Sendable, Equatable {
        /// The request's method.
        public var method: String
        /// The `Origin` header, if any.
        public var origin: String?
        /// `Access-Control-Request-Method`, if any (a preflight).
        public var requestMethod: String?
        /// `Access-Control-Request-Headers`, if any (a preflight).
        public var requestHeaders: String?
        /// The `Cookie` header, if any.
        public var cookie: String?
    }

    private static let corsLog = CORSLog()

    private final class CORSLog: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [String: [CORSLogEntry]] = [:]
        func append(_ key: String, _ entry: CORSLogEntry) { lock.withLock { entries[key, default: []].append(entry) } }
        func entries(_ key: String) -> [CORSLogEntry] { lock.withLock { entries[key] ?? [] } }
    }

    static func cors(_ request: ServerRequest) -> ServerResponse {
        if request.path == "/cors/log" { return .json(corsLog.entries(request.query("key") ?? "")) }
        let preflight = request.method == "OPTIONS"
        if let key = request.query("key") {
            corsLog.append(key, CORSLogEntry(method: request.method, origin: request.headers["Origin"],
                                             requestMethod: request.headers["Access-Control-Request-Method"],
                                             requestHeaders: request.headers["Access-Control-Request-Headers"],
                                             cookie: request.headers["Cookie"]))
        }
        func value(_ name: String) -> String? { request.query((preflight ? "pf_" : "ac_") + name) ?? request.query(name) }
        var response: ServerResponse
        if preflight {
            // Not 204: libsoup closes the connection after a 204 without saying so.
            let status = request.query("pfstatus").flatMap(Int.init).flatMap { (200...599).contains($0) ? $0 : nil } ?? 200
            response = ServerResponse(status: status)
            if let methods = value("acam") { response.headers.add("Access-Control-Allow-Methods", methods) }
            if let names = value("acah") { response.headers.add("Access-Control-Allow-Headers", names) }
            if let age = value("maxage") { response.headers.add("Access-Control-Max-Age", age) }
        } else {
            response = echo(request)
            response.headers.add("X-Custom", "custom")
            response.headers.add("X-Other", "other")
            if let exposed = value("aceh") { response.headers.add("Access-Control-Expose-Headers", exposed) }
        }
        if let origin = value("acao") { response.headers.add("Access-Control-Allow-Origin", origin == "$origin" ? request.headers["Origin"] ?? "" : origin) }
        if let credentials = value("acac") { response.headers.add("Access-Control-Allow-Credentials", credentials) }
        return response
    }

    static func bytes(_ request: ServerRequest) -> ServerResponse {
        let body = request.path == "/bytes/all"
            ? Data((0...255).map { UInt8($0) })
            : pattern(count: min(request.query("n").flatMap(Int.init) ?? 1024, 1 << 28))
        return ServerResponse(headers: ["Content-Type": "application/octet-stream"], body: body)
    }

    static func multipart(_ request: ServerRequest) -> ServerResponse {
        guard let form = MultipartForm(request) else { return .text("expected a multipart body\n", status: 400) }
        let files = form.files.map {
            MultipartReply.File(name: $0.name, filename: $0.filename, contentType: $0.contentType,
                                size: $0.body.count, sha256: sha256Hex($0.body))
        }
        return .json(MultipartReply(fields: form.fields, files: files))
    }
}
#endif
