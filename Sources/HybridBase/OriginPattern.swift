import Foundation

/// A web origin: scheme, host and port, normalised (lower-case, default ports made explicit).
///
/// `https://Example.com` and `https://example.com:443/path` are the same origin.
public struct BridgeOrigin: Sendable, Hashable, CustomStringConvertible {
    /// Lower-case scheme (`https`, `hybrid-app`).
    public let scheme: String
    /// Lower-case host; empty for schemes without one (`file`).
    public let host: String
    /// The port, with the scheme's default filled in (`80` for http, `443` for https); `nil` when
    /// the scheme has no default and none was given.
    public let port: Int?

    /// The origin of `url`, or `nil` when it has none worth trusting (`about:`, `data:`, `blob:`
    /// with no inner URL, `javascript:`).
    public init?(url: URL) {
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty else { return nil }
        if scheme == "blob", let inner = URL(string: String(url.absoluteString.dropFirst("blob:".count))) {
            self.init(url: inner)
            return
        }
        guard !Self.opaqueSchemes.contains(scheme) else { return nil }
        let host = (url.host ?? "").lowercased()
        if host.isEmpty && scheme != "file" { return nil }
        // One trailing dot is a fully qualified name (`example.com.` is `example.com`); a host
        // that still ends in one after it has an empty label and names no origin. Without this,
        // `a..` became `a.`, which the same normalisation then made `a`: an origin that changed
        // when rebuilt from its own parts (found by the url-pattern fuzz target).
        if host == "." || host.hasSuffix("..") { return nil }
        self.init(scheme: scheme, host: host, port: url.port)
    }

    /// An origin from its parts; the port defaults from the scheme.
    public init(scheme: String, host: String, port: Int? = nil) {
        self.scheme = scheme.lowercased()
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        self.host = host
        self.port = port ?? Self.defaultPorts[self.scheme]
    }

    /// `scheme://host[:port]`, with the port omitted when it is the scheme's default.
    public var description: String {
        var text = "\(scheme)://\(host)"
        if let port, port != Self.defaultPorts[scheme] { text += ":\(port)" }
        return text
    }

    static let defaultPorts: [String: Int] = ["http": 80, "https": 443, "ws": 80, "wss": 443]
    static let opaqueSchemes: Set<String> = ["about", "data", "javascript", "blob"]
}

/// Which origins may call a module: exact `scheme://host[:port]` patterns, normalised, or `*`.
///
/// Patterns are exact on purpose: `https://example.com` does not admit `https://a.example.com`
/// nor `http://example.com`. Anything the pattern parser does not understand (a path, a query,
/// user info, an empty host) matches nothing, so a typo denies rather than admits.
public struct OriginPattern: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    package enum Kind: Sendable, Hashable {
        case any
        case exact(BridgeOrigin)
        case invalid(String)
    }

    package let kind: Kind

    /// Every origin, including `file://`. Meant for built-in, harmless modules (`hybrid`, `device`).
    public static let any = OriginPattern(kind: .any)

    /// Exactly this origin.
    public static func exact(_ origin: BridgeOrigin) -> OriginPattern { OriginPattern(kind: .exact(origin)) }

    package init(kind: Kind) { self.kind = kind }

    /// Parses `*` or `scheme://host[:port]` (a trailing `/` is tolerated).
    /// An unparseable pattern is kept but matches nothing; check ``isValid``.
    public init(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "*" {
            kind = .any
            return
        }
        let body = trimmed.hasSuffix("/") && !trimmed.hasSuffix("://") ? String(trimmed.dropLast()) : trimmed
        guard let separator = body.range(of: "://"),
              let url = URL(string: body),
              let scheme = url.scheme, !scheme.isEmpty,
              url.user == nil, url.password == nil, url.query == nil, url.fragment == nil,
              url.path.isEmpty,
              !body[separator.upperBound...].contains("*")
        else {
            kind = .invalid(text)
            return
        }
        let host = (url.host ?? "").lowercased()
        guard !host.isEmpty || scheme.lowercased() == "file" else {
            kind = .invalid(text)
            return
        }
        kind = .exact(BridgeOrigin(scheme: scheme, host: host, port: url.port))
    }

    /// A pattern from a string literal, as ``init(_:)`` parses it.
    public init(stringLiteral value: String) { self.init(value) }

    /// `false` when the text this pattern was made from could not be parsed (it matches nothing).
    public var isValid: Bool { if case .invalid = kind { false } else { true } }

    /// Whether `origin` is admitted. A `nil` origin (opaque, unknown) is admitted only by ``any``.
    public func matches(_ origin: BridgeOrigin?) -> Bool {
        switch kind {
        case .any: true
        case .exact(let allowed): origin == allowed
        case .invalid: false
        }
    }

    /// `*`, the origin it admits, or `<invalid TEXT>`.
    public var description: String {
        switch kind {
        case .any: "*"
        case .exact(let origin): origin.description
        case .invalid(let text): "<invalid \(text)>"
        }
    }
}

extension Array where Element == OriginPattern {
    /// Whether any pattern admits `origin`; an empty list admits nothing (default deny).
    public func admits(_ origin: BridgeOrigin?) -> Bool { contains { $0.matches(origin) } }
}
