#if canImport(CSoup)
import CSoup
import Foundation

/// Hangs up on connections whose request headers do not arrive in time: a slow client that
/// trickles a header block (or never sends one), and a keep-alive connection left idle. libsoup
/// has no such limit and keeps every connection until the peer closes it, so without this a few
/// thousand silent sockets exhaust the server's descriptors.
///
/// Two one-shot timers on the server thread's context do it. When libsoup starts reading a
/// request (`request-started`), its headers get a deadline: if the message still has no method
/// then — libsoup sets it once the whole header block is parsed — the connection is shut down.
/// When a response is done (`request-finished`), a kept-alive connection gets a deadline to
/// start its next request, tracked by a request counter kept on the connection's socket.
/// Requests whose headers arrived are never touched, however long their answers take.
enum HeaderDeadline {
    /// Installs the deadline on `server`. Server thread only, before it starts listening.
    static func install(on server: UnsafeMutablePointer<SoupServer>, after seconds: Double) {
        let milliseconds = guint(max(1, (seconds * 1000).rounded()))
        for (signal, handler) in [("request-started", started), ("request-finished", finished)] {
            g_signal_connect_data(UnsafeMutableRawPointer(server), signal, unsafeBitCast(handler, to: GCallback.self),
                                  Unmanaged.passRetained(Box(milliseconds)).toOpaque(), release, GConnectFlags(rawValue: 0))
        }
    }

    /// The key of a per-connection request counter kept on the connection's `GSocket`.
    private static let counterKey = "hybridkit-requests-started"

    /// A request starts being read: count it on its connection, and give its headers a deadline.
    private static let started: @convention(c) (gpointer?, OpaquePointer?, gpointer?) -> Void = { _, message, data in
        guard let message, let data else { return }
        let milliseconds = Unmanaged<Box>.fromOpaque(data).takeUnretainedValue().value
        if let socket = soup_server_message_get_socket(message) {
            let count = UInt(bitPattern: g_object_get_data(UnsafeMutablePointer(OpaquePointer(socket)), counterKey)) + 1
            g_object_set_data(UnsafeMutablePointer(OpaquePointer(socket)), counterKey, UnsafeMutableRawPointer(bitPattern: count))
        }
        schedule(milliseconds, Deadline(message: message)) { deadline in
            // No method yet: the header block never arrived whole.
            if soup_server_message_get_method(deadline.message) == nil { deadline.hangUp() }
        }
    }

    /// A response is done: a kept-alive connection must start its next request in time.
    private static let finished: @convention(c) (gpointer?, OpaquePointer?, gpointer?) -> Void = { _, message, data in
        guard let message, let data, let socket = soup_server_message_get_socket(message) else { return }
        let milliseconds = Unmanaged<Box>.fromOpaque(data).takeUnretainedValue().value
        let count = UInt(bitPattern: g_object_get_data(UnsafeMutablePointer(OpaquePointer(socket)), counterKey))
        schedule(milliseconds, Deadline(message: message)) { deadline in
            if UInt(bitPattern: g_object_get_data(UnsafeMutablePointer(OpaquePointer(deadline.socket)), counterKey)) == count {
                deadline.hangUp()
            }
        }
    }

    private static let release: @convention(c) (gpointer?, UnsafeMutablePointer<GClosure>?) -> Void = { data, _ in
        if let data { Unmanaged<Box>.fromOpaque(data).release() }
    }

    /// A one-shot timer on the server thread's context; it owns `deadline` until it fires.
    private static func schedule(_ milliseconds: guint, _ deadline: Deadline, check: @escaping (Deadline) -> Void) {
        guard let source = g_timeout_source_new(milliseconds) else { return }
        deadline.check = check
        let fire: @convention(c) (gpointer?) -> gboolean = { data in
            if let data {
                let deadline = Unmanaged<Deadline>.fromOpaque(data).takeUnretainedValue()
                deadline.check?(deadline)
            }
            return 0
        }
        let drop: @convention(c) (gpointer?) -> Void = { data in
            if let data { Unmanaged<Deadline>.fromOpaque(data).release() }
        }
        g_source_set_callback(source, fire, Unmanaged.passRetained(deadline).toOpaque(), drop)
        g_source_attach(source, g_main_context_get_thread_default())
        g_source_unref(source)
    }

    /// A message and its connection's socket, each held by one reference while a timer waits,
    /// so either can be looked at whatever happened to the connection since.
    private final class Deadline {
        let message: OpaquePointer
        let socket: UnsafeMutablePointer<GSocket>?
        var check: ((Deadline) -> Void)?

        init(message: OpaquePointer) {
            self.message = message
            g_object_ref(UnsafeMutableRawPointer(message))
            socket = soup_server_message_get_socket(message)
            if let socket { g_object_ref(socket) }
        }

        deinit {
            if let socket { g_object_unref(socket) }
            g_object_unref(UnsafeMutableRawPointer(message))
        }

        /// Shuts the connection down; libsoup sees end-of-stream and cleans up.
        func hangUp() {
            if let socket { _ = g_socket_shutdown(socket, 1, 1, nil) }
        }
    }

    private final class Box {
        let value: guint
        init(_ value: guint) { self.value = value }
    }
}
#endif
