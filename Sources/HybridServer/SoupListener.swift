#if canImport(CSoup)

import CSoup
import Foundation

/// Creates, binds and tears down the `SoupServer`, and routes its single handler into a
/// ``RouteTable``. Server-thread only.
enum SoupListener {
    typealias Server = UnsafeMutablePointer<SoupServer>

    /// What the catch-all handler needs: the routes, and the loop a deferred answer is written on.
    private final class Context {
        let routes: RouteTable
        let loop: GLibLoop
        init(routes: RouteTable, loop: GLibLoop) {
            self.routes = routes
            self.loop = loop
        }
    }

    /// A server whose one catch-all handler answers from `routes`. The handler holds one
    /// retain of `routes`, released when the server is finalized. A deferred route's answer is
    /// written on `loop` (the server's), whichever thread gives it.
    static func makeServer(routes: RouteTable, loop: GLibLoop) -> Server? {
        guard let object = g_object_new_with_properties(soup_server_get_type(), 0, nil, nil) else { return nil }
        let server = object.withMemoryRebound(to: SoupServer.self, capacity: 1) { $0 }
        let handle: SoupServerCallback = { _, message, _, _, data in
            guard let message, let data else { return }
            let context = Unmanaged<Context>.fromOpaque(data).takeUnretainedValue()
            let request = SoupExchange.request(from: message)
            let held = SoupExchange.HeldMessage(message)
            let loop = context.loop
            context.routes.respond(to: request) { response in
                if held.isOnServerThread { return held.send(response) }
                loop.whenRunning { held.send(response) }
            }
            held.leaveServerThread()
        }
        let release: @convention(c) (gpointer?) -> Void = { data in
            if let data { Unmanaged<Context>.fromOpaque(data).release() }
        }
        soup_server_add_handler(server, nil, handle, Unmanaged.passRetained(Context(routes: routes, loop: loop)).toOpaque(), release)
        return server
    }

    /// Binds `host:port`; returns the bound port.
    static func listen(_ server: Server, host: String, port: Int) -> Result<Int, ListenError> {
        guard let address = g_inet_socket_address_new_from_string(host, guint(port)) else {
            return .failure(ListenError("not an IP address: \(host)"))
        }
        defer { g_object_unref(address) }
        var error: UnsafeMutablePointer<GError>?
        guard soup_server_listen(server, address, SoupServerListenOptions(rawValue: 0), &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "listen failed"
            g_clear_error(&error)
            return .failure(ListenError("\(host):\(port): \(message)"))
        }
        let bound = boundPort(server)
        if host == "127.0.0.1", let loopback6 = g_inet_socket_address_new_from_string("::1", guint(bound)) {
            // Best effort: `localhost` may resolve to ::1 first; without IPv6 it falls back to IPv4.
            _ = soup_server_listen(server, loopback6, SoupServerListenOptions(rawValue: 0), nil)
            g_object_unref(loopback6)
        }
        raiseBacklog(server)
        return .success(bound)
    }

    /// How many connections may wait to be accepted.
    static let backlog: Int32 = 1024

    /// GLib listens with a backlog of 10: a burst of 200 clients overflows it, and the kernel
    /// then drops handshakes, which clients see as stalls of a second or more, or as timeouts.
    /// Calling `listen(2)` again on a listening socket only changes its backlog (Linux).
    private static func raiseBacklog(_ server: Server) {
        guard let listeners = soup_server_get_listeners(server) else { return }
        defer { g_slist_free(listeners) }
        var node: UnsafeMutablePointer<GSList>? = listeners
        while let current = node {
            if let socket = current.pointee.data {
                _ = Glibc.listen(g_socket_get_fd(socket.assumingMemoryBound(to: GSocket.self)), backlog)
            }
            node = current.pointee.next
        }
    }

    /// Closes every listener and connection and drops the server.
    static func shutDown(_ server: Server) {
        soup_server_disconnect(server)
        g_object_unref(server)
    }

    private static func boundPort(_ server: Server) -> Int {
        guard let uris = soup_server_get_uris(server) else { return 0 }
        defer { g_slist_free_full(uris, { g_uri_unref(OpaquePointer($0)) }) }
        guard let first = uris.pointee.data else { return 0 }
        return Int(g_uri_get_port(OpaquePointer(first)))
    }

    struct ListenError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
#endif
