import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

/// Content Security Policy parsing and source-list matching (``ContentSecurityPolicy``), the
/// policy text coming from a server's header or a page's `<meta>`.
///
/// Input: line 1 a header value (policies separated by commas), line 2 the document's URL, the
/// rest URLs to check.
/// - Directive names are non-empty, lower-case, unique in a policy, of ALPHA / DIGIT / "-"; value
///   tokens are non-empty without whitespace, `;` or (from a header) `,`; a policy written back as
///   text parses to the same directives; a meta policy has no `report-uri`, `frame-ancestors`,
///   `sandbox`.
/// - A request is blocked exactly when an enforced policy has a violation; report-only copies of the
///   same policies never block; adding a policy never unblocks; `connect-src 'none'` blocks all; a
///   redirected hop (paths not compared) is allowed whenever the first hop would be.
enum CSPChecks {
    static func check(_ bytes: [UInt8]) throws {
        let parts = fields(bytes, 3)
        let enforced = ContentSecurityPolicy.parse(header: parts[0], disposition: .enforce)
        let meta = ContentSecurityPolicy(serialized: parts[0], disposition: .enforce, source: .meta)
        try require(!meta.directives.contains { ["report-uri", "frame-ancestors", "sandbox"].contains($0.name) },
                    "a meta policy kept a directive meta cannot set")
        for policy in enforced + [meta] { try wellFormed(policy, header: policy.source == .header) }
        let reported = ContentSecurityPolicy.parse(header: parts[0], disposition: .report)
        let origin = URL(string: parts[1]).flatMap { BridgeOrigin(url: $0) }
        let none = ContentSecurityPolicy(serialized: "connect-src 'none'", disposition: .enforce)
        for line in parts[2].split(separator: "\n").prefix(16) {
            guard let url = URL(string: String(line)), url.scheme != nil else { continue }
            let verdict = ContentSecurityPolicy.check(url, directive: .connect, policies: enforced, origin: origin)
            try require(verdict.allowed == !verdict.violations.contains { $0.disposition == .enforce },
                        "blocked is not the same as an enforced violation for \(url)")
            try require(verdict.violations.count <= enforced.count, "more violations than policies")
            try require(verdict.violations.allSatisfy { $0.effectiveDirective == "connect-src" && $0.violatedDirective == "connect-src"
                && ["connect-src", "default-src"].contains($0.decidingDirective) }, "a violation names another directive")
            let onlyReported = ContentSecurityPolicy.check(url, directive: .connect, policies: reported, origin: origin)
            try require(onlyReported.allowed, "a report-only policy blocked \(url)")
            try require(onlyReported.violations.count == verdict.violations.count, "report-only policies judged differently")
            let more = ContentSecurityPolicy.check(url, directive: .connect, policies: enforced + [meta], origin: origin)
            try require(verdict.allowed || !more.allowed, "adding a policy unblocked \(url)")
            try require(!ContentSecurityPolicy.check(url, directive: .connect, policies: enforced + [none], origin: origin).allowed,
                        "'none' allowed \(url)")
            let redirected = ContentSecurityPolicy.check(url, directive: .connect, policies: enforced, origin: origin, redirected: true)
            try require(!verdict.allowed || redirected.allowed, "a redirected hop was refused where the first hop is allowed: \(url)")
            _ = ProxyMixedContent.blocks(url, origin: origin)
        }
    }

    static func wellFormed(_ policy: ContentSecurityPolicy, header: Bool) throws {
        var names = Set<String>()
        for directive in policy.directives {
            try require(!directive.name.isEmpty && directive.name == directive.name.lowercased(), "directive name \(directive.name)")
            try require(directive.name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") },
                        "directive name \(directive.name) has other characters")
            try require(names.insert(directive.name).inserted, "directive \(directive.name) twice")
            for token in directive.value {
                try require(!token.isEmpty && !token.contains(";") && !token.contains { ContentSecurityPolicy.isASCIIWhitespace($0) },
                            "value token \(token.debugDescription)")
                try require(!header || !token.contains(","), "a header policy token holds a comma")
            }
        }
        let written = policy.directives.map { ([$0.name] + $0.value).joined(separator: " ") }.joined(separator: "; ")
        let again = ContentSecurityPolicy(serialized: written, disposition: policy.disposition, source: policy.source)
        try require(again.directives == policy.directives, "\(written.debugDescription) does not parse back to the same directives")
    }
}
