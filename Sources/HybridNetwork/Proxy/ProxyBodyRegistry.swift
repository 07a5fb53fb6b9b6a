import Foundation
import HybridBridge
import HybridBase

/// The streamed request bodies of a ``RequestProxy`` that are being sent, by their random name,
/// so that the page's `proxy.slice` answers reach the right one.
///
/// An answer is taken only from the document that started the request (same origin, same
/// router document): the name goes only to that document, in its own call's progress, and a
/// later document of the same view, another origin or a call made outside the router cannot
/// feed or end someone else's body even if it guessed the name.
final class ProxyBodyRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var bodies: [String: ProxyBodySource] = [:]

    /// Starts taking answers for `source`.
    func add(_ source: ProxyBodySource) { lock.withLock { bodies[source.id] = source } }

    /// Stops taking answers for `source` and stops its streams.
    func remove(_ source: ProxyBodySource) {
        lock.withLock { _ = bodies.removeValue(forKey: source.id) }
        source.cancel()
    }

    /// Stops every body being sent (the proxy is going away).
    func cancelAll() {
        let all = lock.withLock { () -> [ProxyBodySource] in
            defer { bodies.removeAll() }
            return Array(bodies.values)
        }
        all.forEach { $0.cancel() }
    }

    /// How many bodies are being sent (tests check nothing is left behind).
    var count: Int { lock.withLock { bodies.count } }

    /// Hands the page's answer to its body.
    /// - Throws: ``NetworkFailure/invalidBody(_:)`` for an unknown body, another document's
    ///   answer, or an answer that is not what was asked.
    func deliver(_ slice: ProxySlice, origin: BridgeOrigin?, document: Int?) throws {
        guard let source = lock.withLock({ bodies[slice.id] }) else {
            throw HybridError.network(.invalidBody("no request body is being sent under that name"))
        }
        guard source.origin == origin, source.document == document, document != nil else {
            throw HybridError.network(.invalidBody("the answer does not come from the document that sent the request"))
        }
        try source.deliver(slice)
    }
}
