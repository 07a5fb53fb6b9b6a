#if canImport(CSoup)

import CSoup
import Foundation

/// Translation between libsoup's `SoupServerMessage` and ``ServerRequest``/``ServerResponse``.
/// Runs on the server thread only; nothing here decides anything.
enum SoupExchange {
    /// Reads method, path, query, headers and the (already accumulated) body of `message`.
    static func request(from message: OpaquePointer) -> ServerRequest {
        let method = soup_server_message_get_method(message).map { String(cString: $0) } ?? "GET"
        let uri = soup_server_message_get_uri(message)
        let path = uri.flatMap { g_uri_get_path($0) }.map { String(cString: $0) } ?? "/"
        let query = uri.flatMap { g_uri_get_query($0) }.map { String(cString: $0) }
        var headers = HTTPHeaders()
        var iterator = SoupMessageHeadersIter()
        soup_message_headers_iter_init(&iterator, soup_server_message_get_request_headers(message))
        var name: UnsafePointer<CChar>?
        var value: UnsafePointer<CChar>?
        while soup_message_headers_iter_next(&iterator, &name, &value) != 0 {
            if let name, let value { headers.add(String(cString: name), String(cString: value)) }
        }
        var body = Data()
        if let requestBody = soup_server_message_get_request_body(message), let bytes = soup_message_body_flatten(requestBody) {
            var length: gsize = 0
            if let pointer = g_bytes_get_data(bytes, &length), length > 0 { body = Data(bytes: pointer, count: Int(length)) }
            g_bytes_unref(bytes)
        }
        let remote = soup_server_message_get_remote_host(message).map { String(cString: $0) }
        return ServerRequest(method: method, path: path, rawQuery: query, headers: headers, body: body, remoteHost: remote)
    }

    /// Writes `response` to `message`, at once or — with a delay or pacing — later from timeouts
    /// on the current thread's default main context (the server's own). `paused`: the message
    /// was paused to be answered later (a deferred route), and is resumed here.
    static func send(_ response: ServerResponse, to message: OpaquePointer, paused: Bool = false) {
        let needsTimer = (response.delay.map { $0 > .zero } ?? false) || response.pacing != nil
        guard needsTimer else {
            writeHead(response, to: message, paced: false)
            appendBody(response.body[...], to: message)
            if paused { soup_server_message_unpause(message) }
            return
        }
        if !paused { soup_server_message_pause(message) }
        let reply = PendingReply(message: message, response: response)
        let first = response.delay.map(milliseconds) ?? 0
        reply.schedule(after: first)
    }

    static func writeHead(_ response: ServerResponse, to message: OpaquePointer, paced: Bool) {
        soup_server_message_set_status(message, guint(response.status), nil)
        let headers = soup_server_message_get_response_headers(message)
        for field in response.headers { soup_message_headers_append(headers, field.name, field.value) }
        if paced {
            // Announce the full length so clients can report progress while pieces trickle in.
            soup_message_headers_set_content_length(headers, goffset(response.body.count))
        }
    }

    static func appendBody(_ bytes: Data.SubSequence, to message: OpaquePointer) {
        guard !bytes.isEmpty, let body = soup_server_message_get_response_body(message) else { return }
        bytes.withUnsafeBytes { raw in
            soup_message_body_append(body, SOUP_MEMORY_COPY, raw.baseAddress, gsize(raw.count))
        }
    }

    static func milliseconds(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return UInt32(clamping: max(0, total))
    }
}

extension SoupExchange {
    /// A request whose answer may come after its handler returned (a deferred route): answered
    /// at once when it comes while the handler runs on the server thread; otherwise the message
    /// is paused when the handler returns, kept alive, and answered on the server thread when the
    /// answer arrives — unless the client went away meanwhile.
    final class HeldMessage: @unchecked Sendable {
        private enum State { case handling, paused, answered }
        private let message: OpaquePointer
        private let serverThread = pthread_self()
        private let lock = NSLock()
        private var state = State.handling
        private var finished = false
        private var finishedHandler: gulong = 0

        init(_ message: OpaquePointer) { self.message = message }

        /// Whether the caller may answer directly: on the server thread, inside the handler.
        var isOnServerThread: Bool {
            pthread_equal(pthread_self(), serverThread) != 0 && lock.withLock { state == .handling }
        }

        /// Called when the handler returns: holds the message unless it was answered.
        func leaveServerThread() {
            let hold = lock.withLock {
                guard state == .handling else { return false }
                state = .paused
                return true
            }
            guard hold else { return }
            g_object_ref(UnsafeMutableRawPointer(message))
            soup_server_message_pause(message)
            let onFinished: @convention(c) (OpaquePointer?, gpointer?) -> Void = { _, data in
                guard let data else { return }
                Unmanaged<HeldMessage>.fromOpaque(data).takeUnretainedValue().finished = true
            }
            // The signal holds one retain of `self`, released when the connection goes.
            let release: GClosureNotify = { data, _ in
                if let data { Unmanaged<HeldMessage>.fromOpaque(data).release() }
            }
            finishedHandler = hk_soup_signal_connect(UnsafeMutableRawPointer(message), "finished",
                                                     unsafeBitCast(onFinished, to: UnsafeRawPointer.self),
                                                     Unmanaged.passRetained(self).toOpaque(),
                                                     release, 0)
        }

        /// Writes the answer (server thread only); a second answer is ignored.
        func send(_ response: ServerResponse) {
            let previous = lock.withLock {
                defer { state = .answered }
                return state
            }
            switch previous {
            case .handling: SoupExchange.send(response, to: message)
            case .paused:
                if !finished { SoupExchange.send(response, to: message, paused: true) }
                g_signal_handler_disconnect(UnsafeMutableRawPointer(message), finishedHandler)
                g_object_unref(UnsafeMutableRawPointer(message))
            case .answered: break
            }
        }
    }
}

/// A response held back by a GLib timeout: keeps the message alive, notices when the client went
/// away (so it never writes to a finished message), and writes the head, then the body pieces.
private final class PendingReply {
    let message: OpaquePointer
    let response: ServerResponse
    var offset = 0
    var headWritten = false
    var finished = false
    var finishedHandler: gulong = 0

    init(message: OpaquePointer, response: ServerResponse) {
        self.message = message
        self.response = response
        g_object_ref(UnsafeMutableRawPointer(message))
        let onFinished: @convention(c) (OpaquePointer?, gpointer?) -> Void = { _, data in
            guard let data else { return }
            Unmanaged<PendingReply>.fromOpaque(data).takeUnretainedValue().finished = true
        }
        finishedHandler = hk_soup_signal_connect(UnsafeMutableRawPointer(message), "finished",
                                                 unsafeBitCast(onFinished, to: UnsafeRawPointer.self),
                                                 Unmanaged.passUnretained(self).toOpaque(), nil, 0)
    }

    deinit {
        g_signal_handler_disconnect(UnsafeMutableRawPointer(message), finishedHandler)
        g_object_unref(UnsafeMutableRawPointer(message))
    }

    /// Attaches a one-shot timeout to the thread-default context; the source owns one retain of `self`.
    func schedule(after milliseconds: UInt32) {
        guard let source = g_timeout_source_new(milliseconds) else { return }
        let fire: @convention(c) (gpointer?) -> gboolean = { data in
            guard let data else { return 0 }
            Unmanaged<PendingReply>.fromOpaque(data).takeUnretainedValue().step()
            return 0
        }
        let release: @convention(c) (gpointer?) -> Void = { data in
            guard let data else { return }
            Unmanaged<PendingReply>.fromOpaque(data).release()
        }
        g_source_set_callback(source, fire, Unmanaged.passRetained(self).toOpaque(), release)
        g_source_attach(source, g_main_context_get_thread_default())
        g_source_unref(source)
    }

    private func step() {
        guard !finished else { return }
        if !headWritten {
            headWritten = true
            SoupExchange.writeHead(response, to: message, paced: response.pacing != nil)
        }
        guard let pacing = response.pacing else {
            SoupExchange.appendBody(response.body[...], to: message)
            soup_server_message_unpause(message)
            return
        }
        let end = min(response.body.count, offset + pacing.chunkSize)
        SoupExchange.appendBody(response.body[offset..<end], to: message)
        offset = end
        if offset >= response.body.count, let body = soup_server_message_get_response_body(message) {
            soup_message_body_complete(body)
        }
        soup_server_message_unpause(message)
        if offset < response.body.count { schedule(after: SoupExchange.milliseconds(pacing.interval)) }
    }
}
#endif
