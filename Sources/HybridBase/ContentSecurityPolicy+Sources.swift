import Foundation

/// Source-list matching: CSP3 §6.7.2.5–§6.7.2.11, step by step.
extension ContentSecurityPolicy {
    /// Whether `url` matches any expression of `sourceList` for a document of `origin` (CSP3
    /// §6.7.2.5 "does url match source list in origin with redirect count"). An empty list, and
    /// `'none'`, match nothing; keywords other than `'self'` (`'unsafe-inline'`, nonces, hashes)
    /// never match a URL.
    /// - Parameter redirected: `true` after a redirect: paths are not compared.
    public static func matches(_ url: URL, sourceList: [String], origin: BridgeOrigin?, redirected: Bool = false) -> Bool {
        sourceList.contains { matches(url, expression: $0, origin: origin, redirected: redirected) }
    }

    /// CSP3 §6.7.2.6 "does url match expression in origin with redirect count".
    package static func matches(_ url: URL, expression raw: String, origin: BridgeOrigin?, redirected: Bool) -> Bool {
        let expression = raw.lowercased()
        guard let scheme = url.scheme?.lowercased() else { return false }
        if expression == "*" {
            // Any network scheme, or the document's own (a package page's `app:` URLs).
            return scheme == "http" || scheme == "https" || scheme == origin?.scheme
        }
        if expression == "'self'" { return matchesSelf(url, scheme: scheme, origin: origin) }
        if expression.hasPrefix("'") { return false }
        if expression.hasSuffix(":"), isScheme(expression.dropLast()) {
            return schemePartMatches(String(expression.dropLast()), scheme)
        }
        guard let source = HostSource(expression) else { return false }
        guard let host = url.host?.lowercased(), !host.isEmpty else { return false }
        if let sourceScheme = source.scheme {
            guard schemePartMatches(sourceScheme, scheme) else { return false }
        } else {
            // No scheme in the expression: the document's scheme decides (an http page's `example.com`
            // also matches https; a package page's matches only its own scheme, as the standard says).
            guard let origin, schemePartMatches(origin.scheme, scheme) else { return false }
        }
        guard hostPartMatches(source.host, host) else { return false }
        guard portPartMatches(source.port, url: url, scheme: scheme) else { return false }
        if redirected { return true }
        return pathPartMatches(source.path, URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path)
    }

    /// `'self'` (CSP3 §6.7.2.6 step 4): the document's origin, or the same host and port reached
    /// over a more secure scheme (an http page's `'self'` includes https on its host).
    static func matchesSelf(_ url: URL, scheme: String, origin: BridgeOrigin?) -> Bool {
        guard let origin, let host = url.host?.lowercased() else { return false }
        let port = url.port ?? defaultPort(scheme)
        if origin.scheme == scheme && origin.host == host && origin.port == port { return true }
        guard origin.host == host else { return false }
        let samePort = origin.port == port || (origin.port == defaultPort(origin.scheme) && port == defaultPort(scheme))
        guard samePort else { return false }
        return scheme == "https" || scheme == "wss" || (origin.scheme == "http" && (scheme == "http" || scheme == "ws"))
    }

    /// CSP3 §6.7.2.7 "scheme-part matching": equal, or the source's scheme upgraded.
    static func schemePartMatches(_ a: String, _ b: String) -> Bool {
        let a = a.lowercased()
        if a == b { return true }
        switch a {
        case "http": return b == "https"
        case "ws": return b == "wss" || b == "http" || b == "https"
        case "wss": return b == "https"
        default: return false
        }
    }

    /// CSP3 §6.7.2.9 "host-part matching". The standard leaves IP addresses out ("not a domain");
    /// both engines match an IP literal exactly (`127.0.0.1:8080`), which is what this does, and
    /// never through a wildcard.
    static func hostPartMatches(_ pattern: String, _ host: String) -> Bool {
        if pattern == "*" { return true }
        if pattern.hasPrefix("*.") {
            if isIPAddress(host) { return false }
            return host.hasSuffix(String(pattern.dropFirst()))
        }
        return pattern == host
    }

    /// CSP3 §6.7.2.10 "port-part matching": no port means the URL's scheme's default; `*` any.
    static func portPartMatches(_ port: String?, url: URL, scheme: String) -> Bool {
        if port == "*" { return true }
        let urlPort = url.port.flatMap { $0 == defaultPort(scheme) ? nil : $0 }
        let input = port.flatMap { Int($0) }
        if input == urlPort { return true }
        if urlPort == nil, let input, input == defaultPort(scheme) { return true }
        return false
    }

    /// CSP3 §6.7.2.11 "path-part matching": a path ending in `/` is a prefix of whole segments,
    /// any other path must equal the URL's; segments are compared percent-decoded.
    static func pathPartMatches(_ a: String, _ b: String) -> Bool {
        if a.isEmpty { return true }
        if a == "/" && b.isEmpty { return true }
        let exact = !a.hasSuffix("/")
        var listA = a.split(separator: "/", omittingEmptySubsequences: false)
        let listB = b.split(separator: "/", omittingEmptySubsequences: false)
        if listA.count > listB.count { return false }
        if exact && listA.count != listB.count { return false }
        if !exact { listA.removeLast() }
        for (pieceA, pieceB) in zip(listA, listB) {
            let decodedA = String(pieceA).removingPercentEncoding ?? String(pieceA)
            let decodedB = String(pieceB).removingPercentEncoding ?? String(pieceB)
            if decodedA != decodedB { return false }
        }
        return true
    }

    package static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": 80
        case "https", "wss": 443
        case "ftp": 21
        default: nil
        }
    }

    /// `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, CharacterSet.letters.contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "+-.".unicodeScalars.contains($0)) }
    }

    package static func isIPAddress(_ host: String) -> Bool {
        host.hasPrefix("[") || host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil }
    }

    /// `host-source = [ scheme-part "://" ] host-part [ ":" port-part ] [ path-part ]`.
    struct HostSource {
        package var scheme: String?
        package var host: String
        package var port: String?
        package var path: String

        package init?(_ expression: String) {
            var rest = Substring(expression)
            if let range = rest.range(of: "://") {
                let scheme = rest[..<range.lowerBound]
                guard ContentSecurityPolicy.isScheme(scheme) else { return nil }
                self.scheme = String(scheme)
                rest = rest[range.upperBound...]
            }
            let hostEnd: Substring.Index
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { return nil }
                hostEnd = rest.index(after: close)
            } else {
                hostEnd = rest.firstIndex { $0 == ":" || $0 == "/" } ?? rest.endIndex
            }
            let host = rest[..<hostEnd]
            guard !host.isEmpty else { return nil }
            // `*`, `*.label…` or labels of ALPHA / DIGIT / "-" (an IP literal is labels of digits).
            let labels = host.hasPrefix("*.") ? host.dropFirst(2) : host
            guard host == "*" || host.hasPrefix("[") || labels.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({ label in
                !label.isEmpty && label.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") }
            }) else { return nil }
            self.host = String(host)
            rest = rest[hostEnd...]
            if rest.hasPrefix(":") {
                let portEnd = rest.firstIndex(of: "/") ?? rest.endIndex
                let port = rest[rest.index(after: rest.startIndex)..<portEnd]
                guard port == "*" || (!port.isEmpty && port.allSatisfy { $0.isASCII && $0.isNumber }) else { return nil }
                self.port = String(port)
                rest = rest[portEnd...]
            }
            // A path may not hold `;` or `,` (they end a directive or a policy) — parsing made sure.
            self.path = String(rest)
        }
    }
}
