import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

/// `Set-Cookie` (RFC 6265 §5.2), cookie dates (§5.1.1) and Netscape `cookies.txt` files.
///
/// - A parsed cookie has a non-empty name, no control character, a name and value within
///   4096 bytes and a path that starts with `/`.
/// - Round trip: the cookie written back as a header (every attribute it kept) parses to the
///   same cookie; a parsed date written as an HTTP date parses to the same instant.
/// - A `cookies.txt` either parses whole or fails with a line number inside the file, the same
///   with CRLF line ends; what it parsed, written back in the same format, parses to the same cookies.
enum CookieChecks {
    static func setCookie(_ bytes: [UInt8]) throws {
        let value = text(bytes)
        try date(value)
        guard let cookie = SetCookieParser.parse(value) else { return }
        try require(!cookie.name.isEmpty, "an empty name was accepted")
        let forbidden = { (s: Unicode.Scalar) in (s.value < 0x20 && s.value != 0x09) || s.value == 0x7F }
        try require(!(cookie.name + cookie.value).unicodeScalars.contains(where: forbidden), "a control character was accepted")
        try require(cookie.name.utf8.count + cookie.value.utf8.count <= SetCookieParser.maximumNameValueBytes, "an oversized pair was accepted")
        if let path = cookie.path { try require(path.unicodeScalars.first == "/", "path '\(path)' does not start with /") }
        if let domain = cookie.domain { try require(domain == domain.lowercased(), "domain '\(domain)' is not lower-case") }
        let written = Self.header(for: cookie)
        try require(SetCookieParser.parse(written) == cookie, "round trip changed the cookie: \(written.prefix(300))")
    }

    /// `cookie` as a `Set-Cookie` value carrying every attribute it has.
    static func header(for cookie: SetCookie) -> String {
        var header = "\(cookie.name)=\(cookie.value)"
        if let expires = cookie.expires { header += "; Expires=\(httpDate(expires))" }
        if let maxAge = cookie.maxAge { header += "; Max-Age=\(maxAge)" }
        if let domain = cookie.domain { header += "; Domain=.\(domain)" }  // §5.2.3 drops one leading dot
        if let path = cookie.path { header += "; Path=\(path)" }
        if cookie.secure { header += "; Secure" }
        if cookie.httpOnly { header += "; HttpOnly" }
        if cookie.sameSite != .unspecified { header += "; SameSite=\(cookie.sameSite.rawValue)" }
        return header
    }

    static func httpDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int?) -> String { let n = n ?? 0; return n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[((c.weekday ?? 1) - 1) % 7]), \(two(c.day)) \(months[((c.month ?? 1) - 1) % 12]) \(c.year ?? 0) "
            + "\(two(c.hour)):\(two(c.minute)):\(two(c.second)) GMT"
    }

    static func date(_ text: String) throws {
        guard let date = CookieDate.parse(text) else { return }
        try require(date.timeIntervalSince1970 >= -11_644_473_600, "a date before 1601 was accepted: \(date)")
        try require(date.timeIntervalSince1970 == date.timeIntervalSince1970.rounded(.down), "a fractional second")
        let written = httpDate(date)
        try require(CookieDate.parse(written) == date, "round trip changed the date: \(text.prefix(100)) -> \(written)")
    }

    static func cookieFile(_ bytes: [UInt8]) throws {
        let file = text(bytes)
        let lines = file.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
        let result = Result { try NetscapeCookieFile.parse(file) }
        // The same file with CRLF line ends (as written on Windows) reads the same.
        if !file.unicodeScalars.contains("\r") {
            let crlf = String(String.UnicodeScalarView(file.unicodeScalars.flatMap { $0 == "\n" ? ["\r", "\n"] : [$0] }))
            let again = Result { try NetscapeCookieFile.parse(crlf) }
            switch (result, again) {
            case (.success(let a), .success(let b)): try require(a == b, "CRLF line ends change the cookies")
            case (.failure(let a), .failure(let b)):
                try require((a as? NetscapeCookieFile.LineError)?.line == (b as? NetscapeCookieFile.LineError)?.line,
                            "CRLF line ends move the error from \(a) to \(b)")
            default: throw FuzzViolation(description: "CRLF line ends change whether the file parses: \(result) vs \(again)")
            }
        }
        let cookies: [Cookie]
        do { cookies = try result.get() } catch let error as NetscapeCookieFile.LineError {
            try require((1...lines).contains(error.line), "line \(error.line) of a \(lines)-line file")
            return
        } catch {
            throw FuzzViolation(description: "the cookie file parser threw \(error), not a LineError")
        }
        var written = ""
        for cookie in cookies {
            var seconds: Int64 = 0
            if let expires = cookie.expires {
                guard let exact = Int64(exactly: expires.timeIntervalSince1970.rounded()), exact > 0 else { return }
                seconds = exact
            }
            let domain = cookie.hostOnly ? cookie.domain : "." + cookie.domain
            written += (cookie.httpOnly ? "#HttpOnly_" : "") + [domain, cookie.hostOnly ? "FALSE" : "TRUE", cookie.path,
                        cookie.secure ? "TRUE" : "FALSE", String(seconds), cookie.name, cookie.value].joined(separator: "\t") + "\n"
        }
        let again = try? NetscapeCookieFile.parse(written)
        try require(again == cookies, "round trip changed the cookies: \(written.prefix(300))")
    }
}
