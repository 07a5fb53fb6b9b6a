import Foundation

/// Answers one request on the server thread. It must not block: to answer slowly, return a
/// ``ServerResponse`` with a `delay` or `pacing` instead of sleeping.
public typealias RouteHandler = @Sendable (ServerRequest) -> ServerResponse

/// Takes one request on the server thread and answers it later, from any thread, by calling
/// `respond` once (a second call is ignored). Meanwhile the server serves other requests.
public typealias DeferredRouteHandler = @Sendable (ServerRequest, _ respond: @escaping @Sendable (ServerResponse) -> Void) -> Void

/// The server's routes: path prefixes to handlers, longest prefix first. Routes may be added
/// from any thread while the server runs, so the table is guarded by a lock.
final class RouteTable: @unchecked Sendable {
    /// How a route answers: at once, or later (``DeferredRouteHandler``).
    enum Handler {
        case immediate(RouteHandler)
        case deferred(DeferredRouteHandler)
    }

    private struct Route {
        var prefix: String
        var handler: Handler
    }

    private let lock = NSLock()
    private var routes: [Route] = []
    private let accessLog: (@Sendable (String) -> Void)?

    init(accessLog: (@Sendable (String) -> Void)?) { self.accessLog = accessLog }

    /// Adds (or replaces) the handler for `prefix`.
    func add(_ prefix: String, _ handler: Handler) {
        let normalized = Self.normalize(prefix)
        lock.withLock {
            routes.removeAll { $0.prefix == normalized }
            routes.append(Route(prefix: normalized, handler: handler))
            routes.sort { $0.prefix.count > $1.prefix.count }
        }
    }

    func remove(_ prefix: String) {
        let normalized = Self.normalize(prefix)
        lock.withLock { routes.removeAll { $0.prefix == normalized } }
    }

    /// Answers `request` through `respond` (called once): the longest matching prefix's handler, or 404.
    /// An immediate handler's answer is passed on before this returns; a deferred one's, whenever it comes.
    func respond(to request: ServerRequest, _ respond: @escaping @Sendable (ServerResponse) -> Void) {
        let handler = lock.withLock { routes.first { Self.matches(request.path, prefix: $0.prefix) }?.handler }
        let answer = { @Sendable [accessLog] (response: ServerResponse) in
            if let accessLog {
                let query = request.rawQuery.map { "?" + $0 } ?? ""
                accessLog("\(request.remoteHost ?? "-") \"\(request.method) \(request.path)\(query)\" \(response.status) \(response.body.count)")
            }
            respond(response)
        }
        if let malformed = Self.malformation(of: request) { return answer(malformed) }
        switch handler {
        case .immediate(let handle): answer(handle(request))
        case .deferred(let handle): handle(request, answer)
        case nil: answer(.status(404))
        }
    }

    /// A 400 for what libsoup tolerates but a handler should never see: a `Content-Length` that
    /// is not a number, or several that disagree (the request-smuggling shape).
    static func malformation(of request: ServerRequest) -> ServerResponse? {
        let lengths = Set(request.headers.values(for: "Content-Length").map { $0.trimmingCharacters(in: .whitespaces) })
        guard !lengths.isEmpty else { return nil }
        let numeric = lengths.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        return numeric && lengths.count == 1 ? nil : .text("400 bad Content-Length\n", status: 400)
    }

    /// A prefix matches whole segments only: `/echo` matches `/echo` and `/echo/x`, not `/echoes`.
    static func matches(_ path: String, prefix: String) -> Bool {
        if prefix == "/" { return true }
        guard path.hasPrefix(prefix) else { return false }
        return path.count == prefix.count || path.dropFirst(prefix.count).first == "/"
    }

    private static func normalize(_ prefix: String) -> String {
        var result = prefix.hasPrefix("/") ? prefix : "/" + prefix
        while result.count > 1 && result.hasSuffix("/") { result.removeLast() }
        return result
    }
}
