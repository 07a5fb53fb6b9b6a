import Foundation
import HybridBase

/// One stored response of the ``ProxyCache``: what was asked (URL, the `Vary`'d request headers)
/// and what came back (status, header fields, body), with the times RFC 9111's age needs.
///
/// On disk it is one file (``encoded()``/``decode(_:)``): a text head of `keyword value` lines, a
/// blank line, the body. The head ends with the body's length and SHA-256, so a file cut short,
/// grown or changed is refused as a whole (`cache_corrupt`) and never served.
public struct HTTPCacheEntry: Sendable, Hashable {
    /// One header field, as sent or received (names keep their spelling; repeated fields stay apart).
    public struct Field: Sendable, Hashable {
        /// The field name.
        public var name: String
        /// The field value.
        public var value: String
        /// A field.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The request URL (without fragment).
    public var url: String
    /// The request's credentials identity (``ProxyCache``'s hash of its `Cookie` and `Authorization`).
    public var identity: String
    /// The request headers the response's `Vary` names, lower-case, with their values (`nil`: absent).
    public var varying: [String: String?]
    /// The status code.
    public var status: Int
    /// The response's header fields (`Set-Cookie` is never stored: a hit must not set cookies again).
    public var headers: [Field]
    /// The body.
    public var body: Data
    /// When the request that got this response was sent.
    public var requestTime: Date
    /// When the response arrived.
    public var responseTime: Date

    /// An entry.
    public init(url: String, identity: String, varying: [String: String?], status: Int, headers: [Field], body: Data,
                requestTime: Date, responseTime: Date) {
        self.url = url
        self.identity = identity
        self.varying = varying
        self.status = status
        self.headers = headers.filter { !["set-cookie", "set-cookie2"].contains($0.name.lowercased()) }
        self.body = body
        self.requestTime = requestTime
        self.responseTime = responseTime
    }

    /// The request header names the response varies on (its `Vary`, lower-case).
    public static func varyNames(_ headers: [Field]) -> [String] {
        HTTPCachePolicy.values("vary", in: headers).flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// Whether a request with `requestHeaders` may reuse this entry (§4.1): each `Vary`'d header
    /// has the stored value, whitespace around commas aside; absent matches only absent.
    public func matches(varying requestHeaders: [Field]) -> Bool {
        varying.allSatisfy { name, stored in Self.normalized(requestHeaders, name) == stored }
    }

    /// The values of `name` in `headers`, joined and with spaces after commas dropped; `nil` when absent.
    static func normalized(_ headers: [Field], _ name: String) -> String? {
        let values = HTTPCachePolicy.values(name, in: headers)
        guard !values.isEmpty else { return nil }
        return values.joined(separator: ",").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ",")
    }

    // MARK: On disk

    /// The first line of every stored entry (the format's version).
    static let magic = "HKCACHE1"
    /// The longest head read (a head is URL and headers, never the body).
    static let maxHeadBytes = 256 << 10

    /// The entry as stored.
    public func encoded() -> Data {
        var head = "\(Self.magic)\n"
        head += "url \(Self.escape(url))\n"
        head += "identity \(Self.escape(identity))\n"
        head += "status \(status)\n"
        head += "request-time \(Int64((requestTime.timeIntervalSince1970 * 1000).rounded()))\n"
        head += "response-time \(Int64((responseTime.timeIntervalSince1970 * 1000).rounded()))\n"
        for (name, value) in varying.sorted(by: { $0.key < $1.key }) {
            head += value.map { "vary \(Self.escape(name)) \(Self.escape($0))\n" } ?? "vary-absent \(Self.escape(name))\n"
        }
        for field in headers { head += "header \(Self.escape(field.name)) \(Self.escape(field.value))\n" }
        head += "body \(body.count) \(Self.hex(SubresourceIntegrity.Algorithm.sha256.digest(body)))\n\n"
        return Data(head.utf8) + body
    }

    /// Reads a stored entry.
    /// - Throws: `HybridError.network(.cacheCorrupt)` for anything but a whole, well-formed entry:
    ///   another magic, an unknown or repeated line, a value that does not parse, a head over
    ///   ``maxHeadBytes``, a body of another length or digest than its head says.
    public static func decode(_ data: Data) throws -> HTTPCacheEntry {
        func corrupt(_ why: String) -> HybridError { HybridError.network(.cacheCorrupt(why)) }
        let bytes = [UInt8](data.prefix(maxHeadBytes + 2))
        var end: Int?
        for index in 0..<max(0, bytes.count - 1) where bytes[index] == 0x0A && bytes[index + 1] == 0x0A {
            end = index
            break
        }
        guard let end else { throw corrupt("no end of head") }
        guard let head = String(bytes: bytes[..<end], encoding: .utf8) else { throw corrupt("head is not UTF-8") }
        let lines = head.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == Substring(magic) else { throw corrupt("not a cache entry") }
        var url: String?, identity: String?, status: Int?, requestTime: Date?, responseTime: Date?
        var body: (size: Int, digest: String)?
        var varying: [String: String?] = [:]
        var headers: [Field] = []
        for line in lines.dropFirst() {
            let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            func one<T>(_ slot: inout T?, _ value: T?) throws {
                guard slot == nil, words.count == 2, let value else { throw corrupt("bad or repeated \(words[0])") }
                slot = value
            }
            // Milliseconds since 1970, within ±30,000 years (so writing it back cannot overflow).
            func time(_ text: String) -> Date? {
                Int64(text).flatMap { abs($0) < 1_000_000_000_000_000 ? Date(timeIntervalSince1970: Double($0) / 1000) : nil }
            }
            switch words[0] {
            case "url": try one(&url, unescape(words.last!).flatMap { URL(string: $0) != nil ? $0 : nil })
            case "identity": try one(&identity, unescape(words.last!))
            case "status": try one(&status, Int(words.last!).flatMap { (100..<600).contains($0) ? $0 : nil })
            case "request-time": try one(&requestTime, time(words.last!))
            case "response-time": try one(&responseTime, time(words.last!))
            case "vary", "vary-absent":
                let absent = words[0] == "vary-absent"
                guard words.count == (absent ? 2 : 3), let name = unescape(words[1]), !name.isEmpty, varying[name] == nil else {
                    throw corrupt("bad vary")
                }
                if absent {
                    varying[name] = .some(nil)
                } else {
                    guard let value = unescape(words[2]) else { throw corrupt("bad vary") }
                    varying[name] = value
                }
            case "header":
                guard words.count == 3, let name = unescape(words[1]), !name.isEmpty, let value = unescape(words[2]) else {
                    throw corrupt("bad header")
                }
                headers.append(Field(name, value))
            case "body":
                guard body == nil, words.count == 3, let size = Int(words[1]), size >= 0, words[2].count == 64 else {
                    throw corrupt("bad body line")
                }
                body = (size, words[2])
            default: throw corrupt("unknown line")
            }
        }
        guard let url, let identity, let status, let requestTime, let responseTime, let body else { throw corrupt("a line is missing") }
        let content = data.dropFirst(end + 2)
        guard content.count == body.size else { throw corrupt("body of \(content.count) bytes, head says \(body.size)") }
        let bytesOfBody = Data(content)
        guard hex(SubresourceIntegrity.Algorithm.sha256.digest(bytesOfBody)) == body.digest else { throw corrupt("body digest differs") }
        return HTTPCacheEntry(url: url, identity: identity, varying: varying, status: status, headers: headers,
                              body: bytesOfBody, requestTime: requestTime, responseTime: responseTime)
    }

    /// Lower-case hexadecimal.
    static func hex(_ data: Data) -> String { data.lowercaseHex }

    /// A value as one word: percent-encoded so it holds no space, newline, control byte or `%` of its own.
    static func escape(_ text: String) -> String {
        var out: [UInt8] = []
        for byte in text.utf8 {
            if byte <= 0x20 || byte == 0x25 || byte == 0x7F { out += Array(String(format: "%%%02X", byte).utf8) } else { out.append(byte) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The inverse of ``escape(_:)``; `nil` for a bad escape or bytes that are not UTF-8.
    static func unescape(_ word: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(word.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == 0x25 {
                guard let high = iterator.next(), let low = iterator.next(),
                      let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(bytes: bytes, encoding: .utf8)
    }
}
