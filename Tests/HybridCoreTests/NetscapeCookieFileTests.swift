import Foundation
import HybridCore
import Testing

@Suite("Netscape cookies.txt")
struct NetscapeCookieFileTests {
    @Test func readsFieldsFlagsAndHttpOnly() throws {
        let text = """
            # Netscape HTTP Cookie File
            .example.com\tTRUE\t/\tFALSE\t0\tsid\tabc
            #HttpOnly_shop.example.com\tFALSE\t/cart\tTRUE\t2000000000\ttoken\tt=1;x

            """
        let cookies = try NetscapeCookieFile.parse(text)
        #expect(cookies.count == 2)
        #expect(cookies[0] == Cookie(name: "sid", value: "abc", domain: "example.com", hostOnly: false))
        #expect(cookies[1].httpOnly && cookies[1].secure && cookies[1].hostOnly)
        #expect(cookies[1].path == "/cart" && cookies[1].value == "t=1;x")
        #expect(cookies[1].expires == Date(timeIntervalSince1970: 2_000_000_000))
    }

    /// "\r\n" is one Character, not "\n": a file with Windows line ends read as one comment line
    /// and gave no cookies (found by the cookie-file fuzz target's CRLF property).
    @Test func windowsLineEndsReadAsUnixOnes() throws {
        let unix = "# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tFALSE\t0\tsid\tabc\n#HttpOnly_a.example.com\tFALSE\t/\tFALSE\t0\tt\t1\n"
        let windows = unix.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try NetscapeCookieFile.parse(windows) == NetscapeCookieFile.parse(unix))
        #expect(try NetscapeCookieFile.parse(windows).count == 2)
    }

    /// A control character in a field is a malformed line: a value ending in a bare "\r" cannot be
    /// written back apart from a CRLF line end (found by the cookie-file fuzz target's round trip).
    @Test func aControlCharacterInAFieldIsAMalformedLine() {
        #expect(throws: NetscapeCookieFile.LineError(line: 1, reason: "a field holds a control character")) {
            try NetscapeCookieFile.parse("m\tFALSE\t/\tFALSE\t0\ti\t\r\r\n")
        }
        #expect(throws: NetscapeCookieFile.LineError.self) { try NetscapeCookieFile.parse("m\tFALSE\t/\tFALSE\t0\ti\ta\u{1}b\n") }
    }

    /// The domain's leading dot is a byte: `.` with a combining mark after it still goes.
    @Test func aLeadingDotIsAScalar() throws {
        let cookies = try NetscapeCookieFile.parse(".\u{59A}\tTRUE\t/\tFALSE\t0\ta\t\n")
        #expect(cookies.first?.domain == "\u{59A}")
        #expect(Cookie(name: "a", value: "", domain: ".\u{59A}").domain == "\u{59A}")
    }

    @Test func aMalformedLineIsATypedErrorWithItsNumber() {
        #expect(throws: NetscapeCookieFile.LineError(line: 2, reason: "expected 7 tab-separated fields, found 3")) {
            try NetscapeCookieFile.parse("# c\nexample.com\tTRUE\t/\n")
        }
        #expect(throws: NetscapeCookieFile.LineError.self) {
            try NetscapeCookieFile.parse("example.com\tTRUE\t/\tFALSE\tsoon\tn\tv")
        }
    }
}
