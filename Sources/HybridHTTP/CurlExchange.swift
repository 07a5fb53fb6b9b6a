#if canImport(CHybridCurl)
import CHybridCurl
import Foundation
import HybridBase

/// Kept-alive connections, DNS answers and TLS sessions shared by the ``CurlExchange``s that
/// name it, whichever thread each runs on (a libcurl share handle). Freed when the last
/// exchange using it is over.
package final class CurlConnections: @unchecked Sendable {
    fileprivate let share: OpaquePointer?

    /// A new, empty set of connections.
    package init() { share = hk_curl_share_new() }

    deinit { hk_curl_share_free(share) }
}

/// One HTTP request and its response on libcurl, redirects not followed (a 3xx is the
/// response), no cookies, no cache: the request proxy's hop on Linux.
///
/// What it gives that Foundation on Linux does not: the response's header lines as sent, in
/// order, each name in its own spelling (`HTTPURLResponse` keeps one value of names that differ
/// only in case), and callbacks in libcurl's read loop, so a body is taken as it arrives and a
/// handler that throws stops the transfer before another read. Each exchange runs on a thread
/// of its own; ``CurlConnections`` lets them reuse connections.
package enum CurlExchange {
    /// What to send.
    package struct Request {
        /// An http or https URL.
        package var url: URL
        /// The method as sent.
        package var method: String
        /// Header fields in order; an empty value is sent empty.
        package var headers: [(name: String, value: String)]
        /// The body.
        package var body: Body
        /// A declared response body over this many bytes is refused before it is read.
        package var limit: Int?
        /// The whole exchange's deadline.
        package var deadline: Date
        /// The connections to reuse.
        package var connections: CurlConnections?

        /// A request.
        package init(url: URL, method: String, headers: [(name: String, value: String)], body: Body, limit: Int?,
                     deadline: Date, connections: CurlConnections?) {
            self.url = url
            self.method = method
            self.headers = headers
            self.body = body
            self.limit = limit
            self.deadline = deadline
            self.connections = connections
        }
    }

    /// A request body.
    package enum Body {
        /// None (no `Content-Length`).
        case none
        /// These bytes.
        case bytes(Data)
        /// `size` bytes read on demand: `read` fills the buffer and returns how many it wrote, 0 at
        /// the end, -1 to stop the exchange. It may block (the exchange has its own thread).
        case stream(size: Int64, read: (UnsafeMutableRawBufferPointer) -> Int)
    }

    /// What an exchange reports, on its thread, in order: bytes sent, the head once, the body.
    package struct Handlers {
        /// Request body bytes sent so far, and the total.
        package var sent: ((Int64, Int64) -> Void)?
        /// The response's head, once, before any body byte. Throwing stops the exchange.
        package var head: (HTTPHead) throws -> Void
        /// The next piece of the body, valid during the call. Throwing stops the exchange.
        package var body: (UnsafeRawBufferPointer) throws -> Void

        /// Handlers.
        package init(sent: ((Int64, Int64) -> Void)?, head: @escaping (HTTPHead) throws -> Void,
                     body: @escaping (UnsafeRawBufferPointer) throws -> Void) {
            self.sent = sent
            self.head = head
            self.body = body
        }
    }

    /// Why an exchange failed, when no handler stopped it.
    package enum Failure: Error, Equatable {
        /// The connection broke before any response (typically a kept-alive connection the server
        /// had closed): a browser sends the request again, once.
        case connectionLost(String)
        /// The deadline passed.
        case timedOut
        /// The declared body is over the limit.
        case tooLarge(declared: Int64?)
        /// Anything else, in libcurl's words.
        case transport(String)
    }

    /// Sends `request` and reads its response into `handlers`. Cancelling the calling task
    /// stops the exchange at once (its wait for the socket is woken; a streamed body's read must
    /// be woken by its owner) with `CancellationError`.
    /// - Throws: a ``Failure``, what a handler threw, or `CancellationError`.
    package static func perform(_ request: Request, handlers: Handlers) async throws {
        let exchange = Exchange(request: request, handlers: handlers)
        try await CurlThread.run("HybridKit exchange", cancel: { exchange.cancel() }) { try exchange.run() }
    }
}

/// The state of one exchange. Everything but `cancelled` is touched only on its thread.
private final class Exchange: @unchecked Sendable {
    private let request: CurlExchange.Request
    private let handlers: CurlExchange.Handlers
    private let cancelled = LockedState(false)
    /// The multi handle while the transfer runs on it, under a lock: a cancel wakes its wait at
    /// once, and never after it is freed.
    private let waking = LockedState<OpaquePointer?>(nil)
    private var lines = ResponseHeaderLines()
    private var stop: (any Error)?

    init(request: CurlExchange.Request, handlers: CurlExchange.Handlers) {
        self.request = request
        self.handlers = handlers
    }

    /// Marks the exchange cancelled and wakes its wait; cancelled before the multi handle is
    /// published, the first tick sees the mark.
    func cancel() {
        cancelled.withLock { $0 = true }
        waking.withLock { if let multi = $0 { hk_curl_multi_wake(multi) } }
    }

    func run() throws {
        var callbacks = hk_curl_callbacks(
            context: Unmanaged.passUnretained(self).toOpaque(),
            header: { context, line, length in Exchange.from(context).header(line, length) ? 1 : 0 },
            response: { context, status, url in Exchange.from(context).response(Int(status), url) ? 1 : 0 },
            body: { context, bytes, length in
                Exchange.from(context).body(UnsafeRawBufferPointer(start: bytes, count: length)) ? 1 : 0
            },
            tick: { context in Exchange.from(context).tick() ? 1 : 0 },
            read: nil,
            sent: nil)
        if case .stream = request.body {
            callbacks.read = { context, buffer, length in
                Exchange.from(context).read(UnsafeMutableRawBufferPointer(start: buffer, count: length))
            }
        }
        if handlers.sent != nil {
            callbacks.sent = { context, sent, total in Exchange.from(context).handlers.sent?(sent, total) }
        }
        var body: Data?
        var size: Int64 = -1
        switch request.body {
        case .none: break
        case .bytes(let data): body = data; size = Int64(data.count)
        case .stream(let length, _): size = length
        }
        let copies = Self.headerLines(request.headers, hasBody: size >= 0).map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let remaining = request.deadline.timeIntervalSinceNow
        guard remaining > 0 else { throw CurlExchange.Failure.timedOut }
        let multi = hk_curl_multi_new()
        waking.withLock { $0 = multi }
        defer {
            waking.withLock { $0 = nil }
            hk_curl_multi_free(multi)
        }
        var result = hk_curl_result()
        let code: Int32 = copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { pointers in
            request.url.absoluteString.withCString { url in
                request.method.withCString { method in
                    (body ?? Data()).withUnsafeBytes { bytes in
                        // An empty body still needs a pointer (NULL means "call read"); none of its
                        // 0 bytes is read.
                        var plan = hk_curl_request(
                            url: url, method: method, headers: pointers.baseAddress, header_count: pointers.count,
                            body: body == nil ? nil : (bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)), body_size: size,
                            follow_redirects: 0, max_declared: Int64(request.limit ?? 0),
                            // libcurl's timeouts are the backstop of the caller's deadline, which ticks check.
                            connect_ms: CurlThread.milliseconds(remaining + 1), total_ms: CurlThread.milliseconds(remaining + 1),
                            tick_ms: 50, receive_buffer: 256 << 10, send_buffer: 1 << 20,
                            share: request.connections?.share, multi: multi)
                        return hk_curl_perform(&plan, &callbacks, &result)
                    }
                }
            }
        }
        if let stop { throw stop }
        switch code {
        case Int32(HK_CURL_OK):
            return
        case Int32(HK_CURL_FILESIZE_EXCEEDED):
            throw CurlExchange.Failure.tooLarge(declared: result.declared >= 0 ? result.declared : lines.contentLength)
        case Int32(HK_CURL_OPERATION_TIMEDOUT):
            throw CurlExchange.Failure.timedOut
        default:
            let message = CurlThread.message(result)
            let lost: Set<Int32> = [Int32(HK_CURL_GOT_NOTHING), Int32(HK_CURL_SEND_ERROR), Int32(HK_CURL_RECV_ERROR),
                                    Int32(HK_CURL_SEND_FAIL_REWIND)]
            if result.status == 0 && lost.contains(code) { throw CurlExchange.Failure.connectionLost(message) }
            throw CurlExchange.Failure.transport(message)
        }
    }

    /// The lines libcurl takes: an empty value as `Name;`, and libcurl's own `Expect:
    /// 100-continue` (no browser sends it) and form `Content-Type` (for a body the caller gave
    /// none) left out.
    static func headerLines(_ headers: [(name: String, value: String)], hasBody: Bool) -> [String] {
        var lines = headers.map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }
        lines.append("Expect:")
        if hasBody && !headers.contains(where: { $0.name.equalsIgnoringASCIICase("Content-Type") }) {
            lines.append("Content-Type:")
        }
        return lines
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> Exchange {
        Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
    }

    /// Records why the exchange stops; false tells libcurl to stop.
    private func halt(_ error: any Error) -> Bool {
        if stop == nil { stop = error }
        return false
    }

    private func header(_ line: UnsafePointer<CChar>?, _ length: Int) -> Bool {
        guard let line else { return true }
        lines.add(String(decoding: UnsafeRawBufferPointer(start: line, count: length), as: UTF8.self))
        return true
    }

    private func response(_ status: Int, _ effective: UnsafePointer<CChar>?) -> Bool {
        let url = effective.flatMap { URL(string: String(cString: $0)) } ?? request.url
        do { try handlers.head(HTTPHead(status: status, url: url, fields: lines.fields)) } catch { return halt(error) }
        return true
    }

    private func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        do { try handlers.body(bytes) } catch { return halt(error) }
        return true
    }

    private func read(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard case .stream(_, let read) = request.body else { return -1 }
        return read(buffer)
    }

    private func tick() -> Bool {
        if cancelled.withLock({ $0 }) { return halt(CancellationError()) }
        if Date() >= request.deadline { return halt(CurlExchange.Failure.timedOut) }
        return true
    }
}
#endif
