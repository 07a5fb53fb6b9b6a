import Foundation
import HybridCore
import Testing

@Suite struct PackagePathTests {
    @Test(arguments: [
        "/etc/passwd", "C:/Windows/win.ini", "c:evil", "../secret", "a/../../b", "a/..", "..",
        "a\\b", "..\\..\\x", "a\u{0}b", "a\nb", "a\u{7f}", "", "/", ".", "./.", "a/%2e%2e/b", "%2e%2e/x",
        "..%2fetc", "%252e%252e/x", "a%2Fb", String(repeating: "a", count: 1025),
    ])
    func hostilePathsAreRefused(_ raw: String) {
        #expect(throws: HybridError.self) { try PackagePath(raw) }
    }

    @Test(arguments: [
        ("%2e%2e/%2e%2e/etc/passwd", "encoded dot-dot"), ("..%2f..%2fetc", "encoded slash"), ("%252e%252e/x", "double-encoded"),
        ("/abs", "absolute"), ("a/%00b", "encoded NUL"), ("a%5c..%5cb", "encoded backslash"), ("%", "lone percent"),
        ("a/..%2F", "dot-dot then encoded slash"), ("%2e%2e", "encoded dot-dot alone"),
    ])
    func hostileRequestPathsAreRefusedAfterOneDecoding(_ raw: String, _ why: String) {
        #expect(throws: HybridError.self, "\(why)") { try PackagePath(percentEncoded: raw) }
    }

    @Test func normalisesDotAndEmptySegmentsAndUnicode() throws {
        #expect(try PackagePath("a//./b/c.js").value == "a/b/c.js")
        #expect(try PackagePath("dir/").value == "dir")
        #expect(try PackagePath("e\u{301}.txt").value == "\u{e9}.txt")
        #expect(try PackagePath(percentEncoded: "img/a%20b.png").value == "img/a b.png")
        #expect(try PackagePath(percentEncoded: "caf%C3%A9.html").value == "caf\u{e9}.html")
        #expect(try PackagePath("...hidden/a..b").value == "...hidden/a..b")
    }

    @Test func collisionKeyFoldsCaseAndUnicodeForm() throws {
        #expect(try PackagePath("Img/Logo.PNG").collisionKey == PackagePath("img/logo.png").collisionKey)
        #expect(try PackagePath("e\u{301}").collisionKey == PackagePath("\u{e9}").collisionKey)
        #expect(try PackagePath("a/b.MIN.Js").fileExtension == "js")
    }

    @Test func manifestsMayHoldOnlyNormalisedPaths() throws {
        let decoder = JSONDecoder()
        #expect(throws: (any Error).self) { try decoder.decode(PackagePath.self, from: Data(#""a//b""#.utf8)) }
        #expect(throws: (any Error).self) { try decoder.decode(PackagePath.self, from: Data(#""../b""#.utf8)) }
        #expect(try decoder.decode(PackagePath.self, from: Data(#""a/b""#.utf8)).value == "a/b")
    }
}
