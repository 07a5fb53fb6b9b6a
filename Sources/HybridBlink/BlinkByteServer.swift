#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import Glibc
import HybridCore

/// The loopback HTTP endpoint that carries Blink views' byte channels (``BridgeByteChannel``):
/// bodies cross between page and app as raw bytes on a socket instead of base64 on the DevTools
/// pipe (docs/engines.md, "The byte channel on Blink").
///
/// One server per process, on `127.0.0.1` and a port the kernel picks, started when a provider
/// first asks for it. Each view's channel is a route under its store's random name (the
/// capability the page runtime sees: `http://127.0.0.1:PORT/<store>/<token>`), and the route
/// also holds a second 128-bit key that no page ever sees: the view's driver adds it to each of
/// its own requests to the route as they pass through Fetch (`X-HybridKit-Channel`). A request
/// without both (another local process, another view replaying the URL, a guess) is refused
/// before a byte of the store is touched; what the route's channel then answers is its own policy
/// (the page's committed origin only, CORS for that origin alone). A route dies with its view.
final class BlinkByteServer: @unchecked Sendable {
    /// The header a view's driver adds to its requests to its own route.
    static let keyHeader = "X-HybridKit-Channel"
    /// The request head (request line and header fields) is at most this long.
    static let maxHeadBytes = 32 << 10
    /// Connections served at once; one more is closed at once (a thread each: a local process
    /// opening thousands must not make thousands of threads).
    static let maxConnections = 64
    /// A connection that sends nothing (or takes nothing) for this long is closed (the engine opens
    /// a new one).
    static let idleSeconds = 120

    /// The server of this process, started on first use; `nil` when no socket could be bound.
    static let shared: BlinkByteServer? = try? BlinkByteServer()

    /// `http://127.0.0.1:PORT`.
    let origin: String
    private let socket: Int32

    private struct Route {
        let key: String
        let channel: BridgeByteChannel
    }

    private let lock = NSLock()
    private var routes: [String: Route] = [:]
    private var connections = 0

    private init() throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socket = fd
        origin = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "hybridkit-byte-server"
        thread.start()
    }

    /// Serves `channel` under its store name until ``remove(_:)``; returns the route's key.
    func add(_ channel: BridgeByteChannel) -> String {
        let key = BridgeByteStore.makeToken()
        lock.withLock { routes[channel.storeID] = Route(key: key, channel: channel) }
        return key
    }

    /// Stops serving the store named `storeID`: its URLs answer nothing from now on.
    func remove(_ storeID: String) {
        _ = lock.withLock { routes.removeValue(forKey: storeID) }
    }

    /// Whether a route for `storeID` is served (tests: a capability dies with its view).
    func serves(_ storeID: String) -> Bool { lock.withLock { routes[storeID] != nil } }

    /// The URL prefix of `channel`'s route: `http://127.0.0.1:PORT/<store>/`.
    func baseURL(of channel: BridgeByteChannel) -> String { "\(origin)/\(channel.storeID)/" }

    // MARK: Connections

    private func acceptLoop() {
        while true {
            let client = accept(socket, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE {
                    if errno != EINTR { usleep(10_000) }
                    continue
                }
                return
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)   // never inherited by a browser we spawn
            let admitted = lock.withLock { () -> Bool in
                guard connections < Self.maxConnections else { return false }
                connections += 1
                return true
            }
            guard admitted else {
                close(client)
                continue
            }
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            var idle = timeval(tv_sec: Self.idleSeconds, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
            let thread = Thread { [self] in
                serve(client)
                lock.withLock { connections -= 1 }
            }
            thread.name = "hybridkit-byte-connection"
            thread.start()
        }
    }

    /// Answers requests on one kept-alive connection until the peer closes it or a request is
    /// malformed.
    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var connection = BlinkByteConnection(fd: fd)
        while let head = connection.readHead(limit: Self.maxHeadBytes) {
            guard let request = BlinkByteRequestHead(head) else {
                connection.write(status: 400, headers: [("Connection", "close")], body: Data())
                return
            }
            let (status, headers, body, keepsAlive) = answer(request, on: &connection)
            if let feed = body.feed {
                // A feed's bytes as they arrive, chunked; a feed that fails ends the connection
                // without the last chunk, so the page's stream errors.
                guard connection.write(feed, status: status, headers: headers + [("Connection", "keep-alive")]) else { return }
                continue
            }
            guard connection.write(status: status, headers: headers + [("Connection", keepsAlive ? "keep-alive" : "close")], body: body.data),
                  keepsAlive
            else { return }
        }
    }

    /// Checks the route and key, reads the body, and asks the route's channel.
    private func answer(_ head: BlinkByteRequestHead, on connection: inout BlinkByteConnection)
        -> (Int, [(String, String)], Body, Bool) {
        let refused: (Int, [(String, String)], Body, Bool) = (403, [("Cache-Control", "no-store")], Body(), false)
        let path = head.path.split(separator: "?", maxSplits: 1).first ?? ""
        var segments = path.dropFirst().split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard segments.count == 2, let route = lock.withLock({ routes[String(segments[0])] }) else { return refused }
        // Reads (`read/<token>`) need the key the view's driver adds; posts and CORS preflights (which
        // the engine sends itself, without our header) are answered by the channel's origin check alone.
        if segments[1].hasPrefix("read/") {
            guard head.method == "GET", head.header(Self.keyHeader) == route.key else { return refused }
            segments[1] = segments[1].dropFirst("read/".count)
        } else {
            guard head.method == "POST" || head.method == "OPTIONS" else { return refused }
        }
        var body: Data?
        if head.method == "POST", let length = head.contentLength, let url = Self.channelURL(segments),
           let (sink, headers) = route.channel.sink(forPost: SchemeRequest(url: url, method: "POST", headers: head.headers, body: nil)) {
            // A post to a sink streams into it as it arrives, a block at a time (never whole here).
            let complete = connection.stream(length, into: sink)
            sink.end(complete: complete)
            return complete ? (200, headers.map { ($0.name, $0.value) }, Body(), true) : (400, [("Cache-Control", "no-store")], Body(), false)
        }
        if let length = head.contentLength {
            // The store would refuse more than an entry may hold; nothing larger is read.
            // The store would refuse more than an entry may hold: a larger body is read and dropped.
            guard length <= route.channel.store.limits.maxEntryBytes else {
                // The channel answers it (413 to its page) from the declared length alone.
                guard connection.discardBody(length) else { return refused }
                return channelAnswer(route, head, segments, body: nil)
            }
            guard let data = connection.readBody(length) else { return refused }
            body = data
        } else if head.header("Transfer-Encoding") != nil {
            return (411, [("Cache-Control", "no-store")], Body(), false)
        }
        return channelAnswer(route, head, segments, body: body)
    }

    /// What the route's channel answers `head` with `body`, as the same request at its
    /// `hybrid-bytes://<store>/<token>` URL.
    private func channelAnswer(_ route: Route, _ head: BlinkByteRequestHead, _ segments: [Substring], body: Data?)
        -> (Int, [(String, String)], Body, Bool) {
        guard let url = Self.channelURL(segments) else { return (400, [("Cache-Control", "no-store")], Body(), false) }
        let request = SchemeRequest(url: url, method: head.method,
                                    headers: head.headers.filter { !$0.name.equalsIgnoringASCIICase(Self.keyHeader) },
                                    body: body)
        let response = Self.respond(route.channel, request)
        return (response.status, response.headers.map { ($0.name, $0.value) }, Body(data: response.data, feed: response.feed), true)
    }

    /// The request's URL as the channel knows it: `hybrid-bytes://<store>/<token>`.
    private static func channelURL(_ segments: [Substring]) -> URL? {
        URL(string: "\(BridgeByteChannel.scheme)://\(segments[0])/\(segments[1])")
    }

    /// A response body: bytes, or a feed to write as its bytes arrive.
    struct Body {
        var data = Data()
        var feed: BridgeByteFeed?
    }

    private final class Answer: @unchecked Sendable {
        var status = 500
        var headers: [(name: String, value: String)] = []
        var data = Data()
        var feed: BridgeByteFeed?
    }

    /// The channel's answer: on this connection's thread when its host has published the page's
    /// origin (the usual case: no hop to the main actor, which is busy with the DevTools pipe), else
    /// from the main actor, which this thread waits for.
    private static func respond(_ channel: BridgeByteChannel, _ request: SchemeRequest) -> Answer {
        let answer = Answer()
        if let (response, feed) = channel.answerOnThread(to: request), case .data(let data) = response.body {
            answer.status = response.status
            answer.headers = response.headers
            answer.data = data
            answer.feed = feed
            return answer
        }
        let done = DispatchSemaphore(value: 0)
        Task { @MainActor in
            if let response = try? await channel.respond(to: request) {
                answer.status = response.status
                answer.headers = response.headers
                switch response.body {
                case .data(let data): answer.data = data
                case .stream(let chunks, _): do { for try await chunk in chunks { answer.data.append(chunk) } } catch { answer.status = 500 }
                }
            }
            done.signal()
        }
        done.wait()
        return answer
    }
}

/// One request's line and header fields.
struct BlinkByteRequestHead {
    var method: String
    var path: String
    var headers: [(name: String, value: String)]

    init?(_ head: Data) {
        guard let text = String(data: head, encoding: .utf8) else { return nil }
        var lines = text.components(separatedBy: "\r\n")
        let request = lines.removeFirst().split(separator: " ")
        guard request.count == 3, request[2].hasPrefix("HTTP/1."), request[1].hasPrefix("/") else { return nil }
        method = String(request[0]).uppercased()
        path = String(request[1])
        headers = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// The declared body length; `nil` without one (or a malformed one, which is refused as none).
    var contentLength: Int? {
        guard let value = header("Content-Length"), !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(value)
    }
}

/// Buffered blocking reads and writes on a connected socket.
struct BlinkByteConnection {
    let fd: Int32
    private var buffer = Data()

    init(fd: Int32) { self.fd = fd }

    /// Reads up to and including the blank line that ends a request head; `nil` at the end of the
    /// stream, or when the head is longer than `limit`.
    mutating func readHead(limit: Int) -> Data? {
        let end = Data("\r\n\r\n".utf8)
        while true {
            if let range = buffer.range(of: end) {
                let head = buffer.subdata(in: buffer.startIndex..<range.lowerBound)
                buffer.removeSubrange(buffer.startIndex..<range.upperBound)
                return head
            }
            guard buffer.count <= limit, fill(atLeast: 1) else { return nil }
        }
    }

    /// Reads exactly `count` body bytes; `nil` when the peer closes first.
    mutating func readBody(_ count: Int) -> Data? {
        if buffer.count < count {
            // Read straight into the body's own storage: no chunk copied after the kernel's.
            var body = Data(count: count)
            var filled = buffer.count
            body.replaceSubrange(0..<filled, with: buffer)
            buffer = Data()
            let fd = fd
            let complete = body.withUnsafeMutableBytes { raw -> Bool in
                while filled < count {
                    let got = read(fd, raw.baseAddress! + filled, count - filled)
                    if got < 0 && errno == EINTR { continue }
                    guard got > 0 else { return false }
                    filled += got
                }
                return true
            }
            return complete ? body : nil
        }
        let body = buffer.prefix(count)
        buffer.removeFirst(count)
        return Data(body)
    }

    /// Reads `count` body bytes into `sink` a block at a time as they arrive; `false` when the peer
    /// closes first or the sink takes no more (the rest is not read: the connection must close).
    mutating func stream(_ count: Int, into sink: any BridgeByteSink) -> Bool {
        var left = count
        if !buffer.isEmpty {
            let taken = Data(buffer.prefix(left))
            buffer.removeFirst(taken.count)
            left -= taken.count
            guard sink.receive(taken) else { return false }
        }
        while left > 0 {
            var block = Data(count: min(left, 1 << 20))
            let fd = fd
            let got = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return false }
            if got < block.count { block.removeSubrange(got...) }
            left -= got
            guard sink.receive(block) else { return false }
        }
        return true
    }

    /// Reads and drops `count` body bytes; `false` when the peer closes first.
    mutating func discardBody(_ count: Int) -> Bool {
        var left = count
        let buffered = min(buffer.count, left)
        buffer.removeFirst(buffered)
        left -= buffered
        var chunk = [UInt8](repeating: 0, count: 256 << 10)
        while left > 0 {
            let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, min($0.count, left)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return false }
            left -= got
        }
        return true
    }

    private mutating func fill(atLeast count: Int) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<got])
            return got >= count
        }
    }

    /// Writes a response; `false` when the peer went away.
    @discardableResult
    func write(status: Int, headers: [(String, String)], body: Data) -> Bool {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers where !name.equalsIgnoringASCIICase("Content-Length") {
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return send(Data(head.utf8)) && send(body)
    }

    /// Writes a response whose body is `feed`'s bytes as they arrive, in chunks; `false` when the
    /// peer went away (the feed is then cancelled) or the feed failed: the connection must close.
    func write(_ feed: BridgeByteFeed, status: Int, headers: [(String, String)]) -> Bool {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers where !name.equalsIgnoringASCIICase("Content-Length") {
            head += "\(name): \(value)\r\n"
        }
        head += "Transfer-Encoding: chunked\r\n\r\n"
        guard send(Data(head.utf8)) else {
            feed.cancel()
            return false
        }
        while true {
            let (data, end) = feed.nextBlocking()
            guard let data else { return end == .finished && send(Data("0\r\n\r\n".utf8)) }
            guard send(Data((String(data.count, radix: 16) + "\r\n").utf8)), send(data), send(Data("\r\n".utf8)) else {
                feed.cancel()
                return false
            }
        }
    }

    private func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Payload Too Large"
        case 507: "Insufficient Storage"
        default: "Status"
        }
    }
}
#endif
