import Foundation
import HybridCore
import Testing

@Suite("SetCookieParser (RFC 6265 §5.2)")
struct CookieParserTests {
    @Test func nameValueAndWhitespace() throws {
        let cookie = try #require(SetCookieParser.parse(" \tsid = a b \t; Path=/"))
        #expect(cookie.name == "sid")
        #expect(cookie.value == "a b")
        #expect(try #require(SetCookieParser.parse("a=")).value == "")
        #expect(try #require(SetCookieParser.parse("a=b=c")).value == "b=c")
        #expect(try #require(SetCookieParser.parse("a=\"quoted\"")).value == "\"quoted\"")
    }

    @Test func headersWithoutEqualsOrNameAreIgnored() {
        #expect(SetCookieParser.parse("novalue") == nil)
        #expect(SetCookieParser.parse("=value") == nil)
        #expect(SetCookieParser.parse("  =value") == nil)
        #expect(SetCookieParser.parse("") == nil)
        #expect(SetCookieParser.parse("; a=b") == nil)
    }

    /// Separators are read as Unicode scalars: a combining mark after `=` or `;` is one Character
    /// with it, which hid the separator (found by the set-cookie fuzz target's round trip).
    @Test func aCombiningMarkNeverHidesASeparator() throws {
        let cookie = try #require(SetCookieParser.parse("sid=x;\u{301}Path=/a; Secure"))
        #expect(cookie.value == "x")
        #expect(cookie.secure)
        let mark = try #require(SetCookieParser.parse("f=\u{7EE}"))
        #expect(mark.name == "f")
        #expect(mark.value == "\u{7EE}")
        #expect(try #require(SetCookieParser.parse("a=\u{301}b")).value == "\u{301}b")
        // The leading dot of Domain and the slash of Path are octets too.
        let attributes = try #require(SetCookieParser.parse("t=1; Domain=.\u{598}a; Path=/\u{301}x"))
        #expect(attributes.domain == "\u{598}a")
        #expect(attributes.path == "/\u{301}x")
    }

    @Test func oneHeaderIsOneCookieNeverSplitOnCommas() throws {
        let cookie = try #require(SetCookieParser.parse("a=1, b=2; Expires=Wed, 21 Oct 2037 07:28:00 GMT, c=3"))
        #expect(cookie.name == "a")
        #expect(cookie.value == "1, b=2")
        #expect(cookie.expires == CookieDate.parse("Wed, 21 Oct 2037 07:28:00 GMT"))
    }

    @Test func attributeNamesAreCaseInsensitiveAndFlagValuesIgnored() throws {
        let cookie = try #require(SetCookieParser.parse("a=1; SECURE=yes; hTtPoNlY=no; pAtH=/x; DoMaIn=Example.COM"))
        #expect(cookie.secure)
        #expect(cookie.httpOnly)
        #expect(cookie.path == "/x")
        #expect(cookie.domain == "example.com")
        let plain = try #require(SetCookieParser.parse("a=1; Securely; HttpOnlyish"))
        #expect(!plain.secure && !plain.httpOnly)
    }

    @Test func maxAgeWinsOverExpiresWhateverTheOrder() throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let after = try #require(SetCookieParser.parse("a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Max-Age=60"))
        #expect(after.expiry(now: now) == now.addingTimeInterval(60))
        let before = try #require(SetCookieParser.parse("a=1; Max-Age=60; Expires=Wed, 21 Oct 2037 07:28:00 GMT"))
        #expect(before.expiry(now: now) == now.addingTimeInterval(60))
        let session = try #require(SetCookieParser.parse("a=1"))
        #expect(session.expiry(now: now) == nil)
    }

    @Test func maxAgeZeroOrNegativeExpiresNow() throws {
        let now = Date()
        for header in ["a=1; Max-Age=0", "a=1; Max-Age=-1", "a=1; Max-Age=-99999999999999999999999"] {
            let cookie = try #require(SetCookieParser.parse(header))
            #expect(try #require(cookie.expiry(now: now)) <= now, "\(header)")
        }
    }

    @Test func invalidMaxAgeIsIgnoredAndTheLastValidOneWins() throws {
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=abc")).maxAge == nil)
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=1.5")).maxAge == nil)
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=+5")).maxAge == nil)
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=")).maxAge == nil)
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=10; Max-Age=x")).maxAge == 10)
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=10; Max-Age=20")).maxAge == 20)
        #expect(try #require(SetCookieParser.parse("a=1; Max-Age=99999999999999999999999")).maxAge == Int.max)
    }

    @Test func unparsableExpiresIsIgnored() throws {
        #expect(try #require(SetCookieParser.parse("a=1; Expires=tomorrow")).expires == nil)
        #expect(try #require(SetCookieParser.parse("a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Expires=junk")).expires != nil)
    }

    @Test func domainAttribute() throws {
        #expect(try #require(SetCookieParser.parse("a=1; Domain=.Example.com")).domain == "example.com")
        #expect(try #require(SetCookieParser.parse("a=1; Domain=")).domain == nil)
        #expect(try #require(SetCookieParser.parse("a=1; Domain=a.com; Domain=")).domain == "a.com")
        #expect(try #require(SetCookieParser.parse("a=1; Domain=a.com; Domain=b.com")).domain == "b.com")
    }

    @Test func pathAttributeWithoutSlashMeansDefaultPath() throws {
        #expect(try #require(SetCookieParser.parse("a=1; Path=/docs")).path == "/docs")
        #expect(try #require(SetCookieParser.parse("a=1; Path=docs")).path == nil)
        #expect(try #require(SetCookieParser.parse("a=1; Path=")).path == nil)
        #expect(try #require(SetCookieParser.parse("a=1; Path=/a; Path=b")).path == nil)
    }

    @Test func sameSite() throws {
        #expect(try #require(SetCookieParser.parse("a=1; SameSite=strict")).sameSite == .strict)
        #expect(try #require(SetCookieParser.parse("a=1; samesite=LAX")).sameSite == .lax)
        #expect(try #require(SetCookieParser.parse("a=1; SameSite=None")).sameSite == .none)
        #expect(try #require(SetCookieParser.parse("a=1; SameSite=bogus")).sameSite == .unspecified)
    }

    @Test func hostileInputIsRejected() throws {
        #expect(SetCookieParser.parse("a=1\r\nSet-Cookie: evil=1") == nil)
        #expect(SetCookieParser.parse("a=b\u{0}c") == nil)
        #expect(SetCookieParser.parse("a=\u{7f}") == nil)
        #expect(SetCookieParser.parse("a=\(String(repeating: "x", count: 4096))") == nil)
        #expect(SetCookieParser.parse("a=1;\tSecure") != nil)
        let longPath = try #require(SetCookieParser.parse("a=1; Path=/\(String(repeating: "p", count: 2000))"))
        #expect(longPath.path == nil)
    }
}

@Suite("CookieDate (RFC 6265 §5.1.1)")
struct CookieDateTests {
    private func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    }

    @Test func theFormatsServersSend() {
        let expected = utc(2015, 10, 21, 7, 28, 0)
        #expect(CookieDate.parse("Wed, 21 Oct 2015 07:28:00 GMT") == expected)
        #expect(CookieDate.parse("Wednesday, 21-Oct-15 07:28:00 GMT") == expected)
        #expect(CookieDate.parse("Wed Oct 21 07:28:00 2015") == expected)
        #expect(CookieDate.parse("21 october 2015 07:28:00") == expected)
        #expect(CookieDate.parse("Wed, 21-Oct-2015 07:28:00 UTC") == expected)
        #expect(CookieDate.parse("2015 Oct 21 7:28:0") == expected)
    }

    @Test func twoDigitYears() {
        #expect(CookieDate.parse("1 Jan 70 00:00:00") == utc(1970, 1, 1))
        #expect(CookieDate.parse("1 Jan 69 00:00:00") == utc(2069, 1, 1))
        #expect(CookieDate.parse("1 Jan 00 00:00:00") == utc(2000, 1, 1))
    }

    @Test func invalidDatesFail() {
        #expect(CookieDate.parse("Wed, 31 Feb 2015 07:28:00 GMT") == nil)
        #expect(CookieDate.parse("Wed, 21 Oct 2015 24:00:00 GMT") == nil)
        #expect(CookieDate.parse("Wed, 21 Oct 2015 07:60:00 GMT") == nil)
        #expect(CookieDate.parse("Wed, 21 Oct 1600 07:28:00 GMT") == nil)
        #expect(CookieDate.parse("Wed, 32 Oct 2015 07:28:00 GMT") == nil)
        #expect(CookieDate.parse("Wed, 21 Foo 2015 07:28:00 GMT") == nil)
        #expect(CookieDate.parse("Wed, 21 Oct 2015") == nil)
        #expect(CookieDate.parse("") == nil)
        #expect(CookieDate.parse("Wed, 21 Oct 2015 007:28:00 GMT") == nil)
    }

    @Test func leapDay() {
        #expect(CookieDate.parse("29 Feb 2024 12:00:00") == utc(2024, 2, 29, 12))
        #expect(CookieDate.parse("29 Feb 2023 12:00:00") == nil)
        #expect(CookieDate.parse("29 Feb 2000 00:00:00") == utc(2000, 2, 29))
        #expect(CookieDate.parse("29 Feb 2100 00:00:00") == nil)
    }

    /// The arithmetic agrees with Foundation's calendar on every first and last day of a month from
    /// the algorithm's earliest year (1601) to 9999, and the latest second of a day.
    @Test func datesAgreeWithTheCalendar() {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        for year in stride(from: 1601, through: 9999, by: 7) {
            for month in 1...12 {
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = TimeZone(identifier: "UTC")!
                let last = calendar.range(of: .day, in: .month, for: utc(year, month, 1)!)!.count
                #expect(CookieDate.parse("1 \(months[month - 1]) \(year) 00:00:00") == utc(year, month, 1))
                #expect(CookieDate.parse("\(last) \(months[month - 1]) \(year) 23:59:59") == utc(year, month, last, 23, 59, 59))
                #expect(CookieDate.parse("\(last + 1) \(months[month - 1]) \(year) 00:00:00") == nil)
            }
        }
    }
}
