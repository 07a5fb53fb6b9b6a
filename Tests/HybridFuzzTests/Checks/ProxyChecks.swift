import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

/// The request proxy's header handling: page request headers (CORS safelisting, forbidden
/// names), response headers (CORS checks, preflight, exposure) and `Set-Cookie` fields that
/// Foundation joined with commas.
///
/// Input: lines `name: value`; the first line is also read as a joined `Set-Cookie` value.
/// - Only a `Range` of the Fetch standard's simple form (`bytes=` digits `-` digits or nothing,
///   start ≤ end) is safelisted; the preflight's header list is lower-case, sorted, unique
///   and names every header that is not safelisted.
/// - A preflight either allows with a max-age within 0…600 s or throws `cors_denied`; exposed
///   headers are a subset of the response's.
/// - Cookies without commas joined with `, ` split back into the same cookies.
enum ProxyChecks {
    static func check(_ bytes: [UInt8]) throws {
        let lines = text(bytes).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let headers: [(name: String, value: String)] = lines.map { line in
            guard let colon = line.firstIndex(of: ":") else { return (line, "") }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        try requestHeaders(headers)
        try responseHeaders(headers.map { [$0.name.lowercased(), $0.value] })
        try setCookies(lines)
    }

    static func isSimpleRange(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.starts(with: Array("bytes=".utf8)) else { return false }
        let spec = bytes.dropFirst(6)
        guard let dash = spec.firstIndex(of: UInt8(ascii: "-")) else { return false }
        let isDigit = { (b: UInt8) in (0x30...0x39).contains(b) }
        let first = spec[..<dash], last = spec[(dash + 1)...]
        guard !first.isEmpty, first.allSatisfy(isDigit), last.allSatisfy(isDigit) else { return false }
        guard let start = UInt64(String(decoding: first, as: UTF8.self)) else { return false }
        if last.isEmpty { return true }
        guard let end = UInt64(String(decoding: last, as: UTF8.self)) else { return false }
        return start <= end
    }

    static func requestHeaders(_ headers: [(name: String, value: String)]) throws {
        for (name, value) in headers {
            let safe = ProxyCORS.isSafelisted(name: name, value: value)
            if safe { try require(value.utf8.count <= 128, "a safelisted value of \(value.utf8.count) bytes") }
            if name.lowercased() == "range" {
                try require(safe == isSimpleRange(value), "Range \(value.debugDescription.prefix(80)) safelisted: \(safe)")
            }
            _ = ProxyHeaders.isForbidden(name)
        }
        let unsafe = ProxyCORS.unsafeHeaderNames(headers)
        try require(unsafe == Array(Set(unsafe)).sorted(), "the preflight list is not sorted and unique")
        try require(unsafe.allSatisfy { $0 == $0.lowercased() }, "the preflight list is not lower-case")
        for (name, value) in headers where !ProxyCORS.isSafelisted(name: name, value: value) {
            try require(unsafe.contains(name.lowercased()), "\(name) is not safelisted and not in the preflight list")
        }
    }

    static func responseHeaders(_ headers: [[String]]) throws {
        let origin = BridgeOrigin(scheme: "https", host: "app.example.com")
        for credentials in ["omit", "include"] {
            let cors = ProxyCORS(origin: origin, mode: "cors", credentials: credentials)
            _ = cors.check(status: 200, headers: headers)
            do {
                let preflight = try cors.checkPreflight(status: 204, headers: headers, method: "PUT",
                                                        requestHeaders: [("X-Token", "1"), ("Content-Type", "application/json")], forced: false)
                try require((0...ProxyCORS.maxPreflightMaxAge).contains(preflight.maxAge), "max-age \(preflight.maxAge)")
            } catch let violation as FuzzViolation {
                throw violation
            } catch {
                try requireCode(error, in: ["cors_denied"], "checkPreflight")
            }
            let exposed = cors.exposed(headers)
            try require(exposed.allSatisfy { pair in headers.contains(pair) }, "exposed a header the response does not have")
        }
    }

    static func setCookies(_ lines: [String]) throws {
        _ = ProxyHeaders.splitSetCookie(lines.first ?? "")
        let cookies = lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { line in
            guard !line.contains(","), let cookie = SetCookieParser.parse(line) else { return false }
            return !cookie.name.contains(" ")
        }
        guard !cookies.isEmpty else { return }
        let split = ProxyHeaders.splitSetCookie(cookies.joined(separator: ", "))
        try require(split == cookies, "\(cookies.count) cookies joined split into \(split.count): \(cookies.joined(separator: ", ").prefix(200))")
    }
}
