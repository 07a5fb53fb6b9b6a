import Foundation

/// A document's Content Security Policy as CSP Level 3 parses it, and the source-list matching
/// that decides whether a request may go (W3C CSP3 §2.2, §6.7.2).
///
/// Written once here so that the request proxy applies the policy the engine would apply to a
/// proxied `fetch`/`XMLHttpRequest`: its `connect-src` (falling back to `default-src`). The
/// engine's own networking enforces the same policy on requests the proxy does not carry.
///
/// ```swift
/// let policies = ContentSecurityPolicy.parse(header: "connect-src 'self' https://api.example.com", disposition: .enforce)
/// let verdict = ContentSecurityPolicy.check(url, directive: .connect, policies: policies, origin: origin)
/// ```
public struct ContentSecurityPolicy: Sendable, Hashable {
    /// Whether a policy blocks what it does not allow, or only reports it.
    public enum Disposition: String, Sendable, Hashable, Codable {
        /// `Content-Security-Policy`: a violation is blocked and reported.
        case enforce
        /// `Content-Security-Policy-Report-Only`: a violation is reported, never blocked.
        case report
    }

    /// Where the policy came from (a `<meta>` policy ignores some directives).
    public enum Source: String, Sendable, Hashable, Codable {
        /// A response header.
        case header
        /// `<meta http-equiv="Content-Security-Policy">`.
        case meta
    }

    /// The fetch directives the proxy checks, with their fallback lists (CSP3 §6.8.3).
    public enum FetchDirective: String, Sendable, Hashable {
        /// `connect-src`: `fetch`, `XMLHttpRequest`, `WebSocket`, `EventSource`, beacons.
        case connect = "connect-src"

        /// The directive itself, then what it falls back to.
        public var fallbackList: [String] { [rawValue, "default-src"] }
    }

    /// One directive: its lower-cased name and its value's tokens.
    public struct Directive: Sendable, Hashable {
        /// The lower-cased name (`connect-src`).
        public var name: String
        /// The value split on ASCII whitespace (`'self'`, `https://*.example.com`).
        public var value: [String]
    }

    /// The directives in order of appearance. A repeated name is ignored after its first
    /// appearance, as the standard says.
    public let directives: [Directive]
    /// Enforce or report only.
    public let disposition: Disposition
    /// Header or meta.
    public let source: Source
    /// The serialized policy as given (what a violation reports as its `originalPolicy`).
    public let serialized: String

    /// Parses one serialized policy (CSP3 §2.2.1 "parse a serialized CSP").
    /// - Parameters:
    ///   - serialized: The text of one policy (no commas splitting it further).
    ///   - disposition: Enforce or report.
    ///   - source: Header or meta; a meta policy drops `report-uri`, `frame-ancestors` and `sandbox`.
    public init(serialized: String, disposition: Disposition, source: Source = .header) {
        var directives: [Directive] = []
        var seen = Set<String>()
        for token in serialized.split(separator: ";", omittingEmptySubsequences: true) {
            let parts = token.split(whereSeparator: Self.isASCIIWhitespace).map(String.init)
            guard let first = parts.first else { continue }
            // A directive name is ALPHA / DIGIT / "-"; anything else names no directive.
            guard first.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") }) else { continue }
            let name = first.lowercased()
            guard seen.insert(name).inserted else { continue }
            if source == .meta, ["report-uri", "frame-ancestors", "sandbox"].contains(name) { continue }
            directives.append(Directive(name: name, value: Array(parts.dropFirst())))
        }
        self.directives = directives
        self.disposition = disposition
        self.source = source
        self.serialized = serialized.trimmingCharacters(in: .whitespaces)
    }

    /// Every policy a header value holds: a value may carry several, separated by commas (CSP3
    /// §2.2.2); empty ones are dropped.
    public static func parse(header value: String, disposition: Disposition) -> [ContentSecurityPolicy] {
        value.split(separator: ",").map { ContentSecurityPolicy(serialized: String($0), disposition: disposition) }
            .filter { !$0.directives.isEmpty }
    }

    /// The policies of a response's headers: `Content-Security-Policy` (enforced) and
    /// `Content-Security-Policy-Report-Only` (reported), each field and each comma-separated policy.
    public static func parse(headers: [(name: String, value: String)]) -> [ContentSecurityPolicy] {
        headers.flatMap { header -> [ContentSecurityPolicy] in
            switch header.name.lowercased() {
            case "content-security-policy": parse(header: header.value, disposition: .enforce)
            case "content-security-policy-report-only": parse(header: header.value, disposition: .report)
            default: []
            }
        }
    }

    /// The value of the first directive of `directive`'s fallback list this policy has, with the
    /// name it has (`nil`: the policy says nothing about it and allows it).
    public func effective(_ directive: FetchDirective) -> Directive? {
        for name in directive.fallbackList {
            if let found = directives.first(where: { $0.name == name }) { return found }
        }
        return nil
    }

    /// Whether this policy allows `url` for `directive` from a document of `origin`.
    /// - Parameter redirected: `true` after a redirect: paths are then not compared (CSP3 §6.7.2.8).
    public func allows(_ url: URL, directive: FetchDirective, origin: BridgeOrigin?, redirected: Bool = false) -> Bool {
        guard let found = effective(directive) else { return true }
        return Self.matches(url, sourceList: found.value, origin: origin, redirected: redirected)
    }

    /// What a request that `policies` refuse or report looks like (the `SecurityPolicyViolationEvent`'s fields).
    public struct Violation: Sendable, Hashable, Codable {
        /// The refused URL, its fragment and credentials stripped.
        public var blockedURI: String
        /// What the event's `violatedDirective` says: the effective directive (`connect-src`) even
        /// when `default-src` decided, as CSP3 defines it and both engines report it (measured).
        public var violatedDirective: String
        /// The directive of the policy that decided (`connect-src`, or `default-src` for a policy without one).
        public var decidingDirective: String
        /// The directive the request is checked against (`connect-src`).
        public var effectiveDirective: String
        /// The whole policy that refused it.
        public var originalPolicy: String
        /// `enforce` (blocked) or `report` (only reported).
        public var disposition: Disposition
    }

    /// The verdict of every policy on one request.
    public struct Verdict: Sendable, Hashable {
        /// `false` when an enforced policy refuses it.
        public var allowed: Bool
        /// Every policy that refused it, enforced or report-only, in order.
        public var violations: [Violation]
    }

    /// Checks `url` against every policy: each enforced one must allow it (CSP3 §4.2: a request is
    /// blocked when any enforced policy blocks it); report-only ones only add violations.
    /// - Parameter initialURL: For a redirected hop, the URL the request started with: a violation
    ///   names it, not where the redirect went (CSP3 §5.4; both engines do so, measured).
    public static func check(_ url: URL, directive: FetchDirective, policies: [ContentSecurityPolicy], origin: BridgeOrigin?,
                             redirected: Bool = false, initialURL: URL? = nil) -> Verdict {
        var verdict = Verdict(allowed: true, violations: [])
        for policy in policies {
            guard let found = policy.effective(directive),
                  !matches(url, sourceList: found.value, origin: origin, redirected: redirected) else { continue }
            if policy.disposition == .enforce { verdict.allowed = false }
            verdict.violations.append(Violation(blockedURI: reportable(redirected ? initialURL ?? url : url), violatedDirective: directive.rawValue,
                                                decidingDirective: found.name,
                                                effectiveDirective: directive.rawValue, originalPolicy: policy.serialized,
                                                disposition: policy.disposition))
        }
        return verdict
    }

    /// A URL as a report may show it: no fragment, no user name or password (CSP3 §5.4 "strip URL for use in reports").
    package static func reportable(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        parts.fragment = nil
        parts.user = nil
        parts.password = nil
        return parts.string ?? url.absoluteString
    }

    static func isASCIIWhitespace(_ character: Character) -> Bool {
        character == " " || character == "\t" || character == "\n" || character == "\r" || character == "\u{0C}"
    }
}
