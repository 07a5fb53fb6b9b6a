import Foundation
import HybridBase

/// A URL pattern a config rule matches navigations with.
///
/// Syntax: `*` (every URL), or `SCHEME://HOST[:PORT][/PATH]` where
/// - `SCHEME` is a scheme (`https`, `hybrid-app`) or `*` for any;
/// - `HOST` is a host name, `*` for any, or `*.example.com` for `example.com` and every subdomain;
/// - `PORT` is a number or `*`; left out, any port matches;
/// - `PATH` is a glob on the URL's percent-encoded path, where `*` matches any run of characters
///   (slashes included); left out, it is `/*`. Queries and fragments are never matched, so a rule
///   cannot be dodged or triggered by adding `?x`.
///
/// Hosts and schemes compare case-insensitively, paths exactly.
public struct ConfigURLPattern: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The pattern as written.
    public let text: String
    private let scheme: String?
    private let host: Host
    private let port: Int?
    private let path: String

    private enum Host: Sendable, Hashable {
        case any
        case exact(String)
        case domain(String)   // the domain itself and every subdomain
    }

    /// Parses `text`.
    /// - Throws: ``ConfigFailure/invalidPattern(pattern:reason:)``.
    public init(_ text: String) throws {
        func bad(_ reason: String) -> HybridError { .cfg(.invalidPattern(pattern: text, reason: reason)) }
        self.text = text
        if text == "*" {
            (scheme, host, port, path) = (nil, .any, nil, "*")
            return
        }
        guard !text.contains(where: { $0.isWhitespace || $0 == "#" || $0 == "?" }) else {
            throw bad("spaces, '?' and '#' are not allowed (queries and fragments are never matched)")
        }
        guard let separator = text.range(of: "://") else { throw bad("expected SCHEME://HOST[/PATH] or *") }
        let schemeText = text[..<separator.lowerBound].lowercased()
        guard schemeText == "*" || (!schemeText.isEmpty && schemeText.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }) else {
            throw bad("bad scheme '\(schemeText)'")
        }
        scheme = schemeText == "*" ? nil : schemeText
        let rest = text[separator.upperBound...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = String(rest[..<slash]).lowercased()
        path = slash == rest.endIndex ? "/*" : String(rest[slash...])
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            let portText = authority[authority.index(after: colon)...]
            if portText == "*" {
                port = nil
            } else {
                guard let number = Int(portText), (1...65_535).contains(number) else { throw bad("bad port '\(portText)'") }
                port = number
            }
            authority = String(authority[..<colon])
        } else {
            port = nil
        }
        if authority.hasSuffix(".") { authority.removeLast() }
        guard !authority.isEmpty else { throw bad("empty host") }
        if authority == "*" {
            host = .any
        } else if authority.hasPrefix("*.") {
            let domain = String(authority.dropFirst(2))
            guard !domain.isEmpty, !domain.contains("*") else { throw bad("'*' may only lead the host as '*.'") }
            host = .domain(domain)
        } else {
            guard !authority.contains("*") else { throw bad("'*' may only lead the host as '*.'") }
            host = .exact(authority)
        }
    }

    /// Whether `url` matches.
    public func matches(_ url: URL) -> Bool {
        if text == "*" { return true }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let urlScheme = components.scheme?.lowercased() else { return false }
        if let scheme, scheme != urlScheme { return false }
        var urlHost = (components.host ?? "").lowercased()
        if urlHost.hasSuffix(".") { urlHost.removeLast() }
        switch host {
        case .any: break
        case .exact(let name): if urlHost != name { return false }
        case .domain(let domain): if urlHost != domain && !urlHost.hasSuffix("." + domain) { return false }
        }
        if let port {
            let defaults = ["http": 80, "https": 443, "ws": 80, "wss": 443]
            guard (components.port ?? defaults[urlScheme]) == port else { return false }
        }
        let urlPath = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return Self.glob(path, matches: urlPath)
    }

    /// `*`-only glob matching, iterative: each `*` is retried from the last one only, so the cost
    /// stays linear-ish in the text and a hostile pattern cannot blow up.
    static func glob(_ pattern: String, matches text: String) -> Bool {
        var steps = 0
        return glob(pattern, matches: text, steps: &steps)
    }

    /// ``glob(_:matches:)`` counting its loop turns in `steps`, so a test can hold the cost to
    /// its bound (pattern length × text length) without timing it.
    static func glob(_ pattern: String, matches text: String, steps: inout Int) -> Bool {
        let p = Array(pattern.utf8), t = Array(text.utf8)
        var pi = 0, ti = 0
        var star = -1, resume = 0
        while ti < t.count {
            steps += 1
            if pi < p.count, p[pi] == UInt8(ascii: "*") {
                star = pi
                resume = ti
                pi += 1
            } else if pi < p.count, p[pi] == t[ti] {
                pi += 1
                ti += 1
            } else if star >= 0 {
                pi = star + 1
                resume += 1
                ti = resume
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.count
    }

    /// The pattern as written (``text``).
    public var description: String { text }

    /// Decodes a pattern from its text.
    /// - Throws: ``ConfigFailure/invalidPattern(pattern:reason:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        try self.init(try container.decode(String.self))
    }

    /// Encodes the pattern as its text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    /// Patterns are equal when written the same way.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.text == rhs.text }
    /// Hashes the pattern's text.
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
