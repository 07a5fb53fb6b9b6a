import Foundation
import HybridBase

/// An HTTP header list that keeps order and repeated fields (`Set-Cookie`, `Cookie`), with
/// case-insensitive lookup as HTTP requires.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in the order they were received or added.
    public private(set) var fields: [(name: String, value: String)]

    /// A list of `fields`, in order (empty by default).
    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    /// A list from a literal, in the literal's order; a name may repeat.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name` (case-insensitive), or `nil`.
    public subscript(name: String) -> String? {
        fields.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// Every value of `name`, in order (case-insensitive).
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }

    /// Adds a field, keeping any earlier field of the same name (`Set-Cookie` needs this).
    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }

    /// Replaces every field of `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes every field of `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// Lists are equal when they have the same fields in the same order (names compared exactly).
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Hashes every field in order.
    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }
}

/// A request as the server received it. Built on the server thread; a plain value afterwards.
public struct ServerRequest: Sendable {
    /// `GET`, `POST`, … as sent.
    public var method: String
    /// The percent-encoded path, as sent (`/a%20b`).
    public var path: String
    /// The raw, percent-encoded query string without `?`, or `nil` when there is none.
    public var rawQuery: String?
    /// The request's header fields, in the order received.
    public var headers: HTTPHeaders
    /// The complete request body (empty when there is none).
    public var body: Data
    /// The client's address (`127.0.0.1`).
    public var remoteHost: String?
    /// The client's port, when the listener knows it (with the server's port, it names the client's
    /// socket: ``LoopbackPeer/userID(clientPort:serverPort:)``).
    public var remotePort: Int?
    /// The server's port the request came in on, when the listener knows it.
    public var localPort: Int?

    /// A request from its parts; route tests build them directly.
    public init(method: String, path: String, rawQuery: String? = nil, headers: HTTPHeaders = [:], body: Data = Data(),
                remoteHost: String? = nil, remotePort: Int? = nil, localPort: Int? = nil) {
        self.method = method
        self.path = path
        self.rawQuery = rawQuery
        self.headers = headers
        self.body = body
        self.remoteHost = remoteHost
        self.remotePort = remotePort
        self.localPort = localPort
    }

    /// The user owning the client's socket (a loopback connection on Linux), `nil` when it cannot be told.
    public var peerUserID: UInt32? {
        guard let remotePort, let localPort else { return nil }
        return LoopbackPeer.userID(clientPort: remotePort, serverPort: localPort)
    }

    /// The query as ordered name/value pairs, percent- and `+`-decoded as forms encode them.
    public var queryItems: [(name: String, value: String)] {
        guard let rawQuery, !rawQuery.isEmpty else { return [] }
        return rawQuery.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            return (name: decode(parts[0]), value: parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// The first value of query parameter `name`.
    public func query(_ name: String) -> String? { queryItems.first { $0.name == name }?.value }

    /// Every value of query parameter `name`, in order.
    public func queryValues(_ name: String) -> [String] { queryItems.filter { $0.name == name }.map(\.value) }

    /// The `Host` header without its port, lower-cased (`localhost`, `127.0.0.1`).
    public var hostName: String? {
        guard let host = headers["Host"]?.lowercased() else { return nil }
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") { return String(host[host.index(after: host.startIndex)..<end]) }
        return host.split(separator: ":", maxSplits: 1).first.map(String.init)
    }
}
