import Foundation
import HybridCore
import Testing

/// `Content-Disposition` (RFC 6266, `filename*` per RFC 5987/8187) parsed in one place for every
/// engine adapter, with hostile names: whatever the server sends, the name stays a plain file name
/// inside the app's directory.
@Suite("Content-Disposition")
struct ContentDispositionTests {
    @Test(arguments: [
        ("attachment", "attachment", nil),
        ("Attachment; filename=report.pdf", "attachment", "report.pdf"),
        ("inline; filename=\"a b.txt\"", "inline", "a b.txt"),
        ("attachment; filename=\"quoted \\\"name\\\".txt\"", "attachment", "quoted \"name\".txt"),
        ("attachment; FILENAME = \"spaced.txt\" ", "attachment", "spaced.txt"),
        ("attachment; filename=\"semi;colon.txt\"; size=3", "attachment", "semi;colon.txt"),
        ("attachment; filename*=UTF-8''%E2%82%AC%20rates.txt", "attachment", "€ rates.txt"),
        ("attachment; filename*=utf-8'en'%C3%A9t%C3%A9.csv", "attachment", "été.csv"),
        ("attachment; filename*=ISO-8859-1''%E9t%E9.csv", "attachment", "été.csv"),
        // filename* wins over filename, in either order (RFC 6266 §4.3).
        ("attachment; filename=\"fallback.txt\"; filename*=UTF-8''%C3%BCber.txt", "attachment", "über.txt"),
        ("attachment; filename*=UTF-8''%C3%BCber.txt; filename=\"fallback.txt\"", "attachment", "über.txt"),
        // An unknown charset or broken encoding falls back to filename.
        ("attachment; filename*=KOI8-R''%F0; filename=plain.txt", "attachment", "plain.txt"),
        ("attachment; filename*=UTF-8''%ZZ; filename=plain.txt", "attachment", "plain.txt"),
        ("attachment; filename*=UTF-8''%FF%FE; filename=plain.txt", "attachment", "plain.txt"),
        ("attachment; filename*=no-quotes.txt", "attachment", nil),
        ("attachment; filename=", "attachment", nil),
        ("attachment; filename=\"unterminated.txt", "attachment", "unterminated.txt"),
        ("attachment;;; junk; filename=ok.txt", "attachment", "ok.txt"),
        ("attachment; filename=first.txt; filename=second.txt", "attachment", "first.txt"),
        ("attachmentx; filename=x.txt", "attachmentx", "x.txt"),
    ] as [(String, String, String?)])
    func parses(_ value: String, _ type: String, _ filename: String?) throws {
        let parsed = try #require(ContentDisposition(value))
        #expect(parsed.type == type)
        #expect(parsed.filename == filename)
        #expect(parsed.isAttachment == (type == "attachment"))
    }

    @Test func noValueOrNoTypeIsNotADisposition() {
        #expect(ContentDisposition(nil) == nil)
        #expect(ContentDisposition("") == nil)
        #expect(ContentDisposition("   ") == nil)
        #expect(ContentDisposition("; filename=x.txt") == nil)
    }

    /// Hostile names, plain and encoded: traversal, NUL and other controls, hidden files, very
    /// long names; each becomes a plain name that stays in the directory it is joined to.
    @Test(arguments: [
        ("attachment; filename=\"../../../etc/passwd\"", "passwd"),
        ("attachment; filename*=UTF-8''..%2F..%2F.bashrc", "bashrc"),
        ("attachment; filename*=UTF-8''..%5C..%5Cevil.exe", "evil.exe"),
        ("attachment; filename*=UTF-8''a%00b.txt", "ab.txt"),
        ("attachment; filename=\"a\u{0}b\u{7}c.txt\"", "abc.txt"),
        ("attachment; filename*=UTF-8''%0D%0ASet-Cookie.txt", "Set-Cookie.txt"),
        ("attachment; filename=\"..\"", DownloadFilename.fallback),
        ("attachment; filename*=UTF-8''%2E%2E", DownloadFilename.fallback),
        ("attachment; filename=\"/\"", DownloadFilename.fallback),
        // A right-to-left override would show `invoice\u{202E}fdp.exe` as `invoiceexe.pdf`.
        ("attachment; filename*=UTF-8''invoice%E2%80%AEfdp.exe", "invoicefdp.exe"),
    ])
    func hostileNamesStayInTheDirectory(_ value: String, _ expected: String) throws {
        let name = try #require(ContentDisposition(value)?.safeFilename)
        #expect(name == expected)
        let directory = URL(fileURLWithPath: "/tmp/downloads")
        let placed = Download(id: "1", sourceURL: URL(string: "https://x/")!, suggestedFilename: ContentDisposition(value)?.filename ?? "")
            .destination(in: directory)
        #expect(placed.deletingLastPathComponent().standardizedFileURL.path == directory.path)
        #expect(placed.lastPathComponent == expected)
    }

    /// A very long name (plain, or percent-encoded multi-byte characters) is cut to what a file
    /// system takes, at a character boundary, keeping its extension.
    @Test(arguments: [
        String(repeating: "a", count: 5000) + ".pdf",
        String(repeating: "€", count: 300) + ".pdf",
        String(repeating: "😀", count: 100) + ".pdf",
        String(repeating: "x", count: 250),
    ])
    func veryLongNamesAreCutToAFileSystemName(_ long: String) throws {
        let encoded = long.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let name = try #require(ContentDisposition("attachment; filename*=UTF-8''" + encoded)?.safeFilename)
        #expect(name.utf8.count <= DownloadFilename.maxBytes)
        #expect(name.utf8.count > DownloadFilename.maxBytes - 24, "cut close to the limit (less one character), not far below: \(name.utf8.count)")
        #expect(long.hasPrefix(String(name.prefix(while: { $0 != "." }))))
        #expect(name.hasSuffix(".pdf") == long.hasSuffix(".pdf"))
        // A grapheme cluster longer than the budget leaves no stem: the fallback keeps the extension.
        let cluster = "e" + String(repeating: "\u{301}", count: 200) + ".txt"
        #expect(DownloadFilename.sanitized(cluster) == DownloadFilename.fallback + ".txt")
    }

    /// A combining mark after a leading dot is one Character with it; the dot still goes (found by
    /// the content-disposition fuzz target: `.\u{301}name` kept its dot, a hidden file).
    @Test func aLeadingDotGoesEvenWithACombiningMarkOnIt() {
        #expect(DownloadFilename.sanitized(".\u{301}bashrc") == "\u{301}bashrc")
        #expect(DownloadFilename.sanitized("../.\u{301}x") == "\u{301}x")
        #expect(DownloadFilename.sanitized("x .\u{301}").utf8.last != UInt8(ascii: "."))
    }

    /// A response made a download keeps the file name it named; one that already says attachment
    /// is left as it is.
    @Test func markingAsAttachmentKeepsTheName() {
        #expect(ContentDisposition.attachment(keeping: nil) == "attachment")
        #expect(ContentDisposition.attachment(keeping: "inline") == "attachment")
        #expect(ContentDisposition.attachment(keeping: "attachment; filename=\"x.txt\"") == "attachment; filename=\"x.txt\"")
        let marked = ContentDisposition.attachment(keeping: "inline; filename=\"été \\\"1\\\";.pdf\"")
        #expect(ContentDisposition(marked) == ContentDisposition("attachment; filename*=UTF-8''%C3%A9t%C3%A9%20%221%22%3B.pdf"))
        #expect(ContentDisposition(marked)?.filename == "été \"1\";.pdf")
    }

    @Test func aNavigationResponseIsAnAttachmentOnlyWhenItsTypeSaysSo() {
        let url = URL(string: "https://m.example.com/f")!
        func response(_ disposition: String) -> NavigationResponse {
            NavigationResponse(url: url, statusCode: 200, mimeType: "text/plain", headers: [("Content-Disposition", disposition)],
                               isMainFrame: true, canShowMIMEType: true)
        }
        #expect(response("ATTACHMENT; filename=a.txt").isAttachment)
        #expect(!response("attachments; filename=a.txt").isAttachment)
        #expect(!response("inline; filename=attachment.txt").isAttachment)
    }
}
