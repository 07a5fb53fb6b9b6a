import Foundation
import HybridEngine

/// Reads the Netscape `cookies.txt` format that curl, wget and browser extensions write: one
/// cookie per line, seven tab-separated fields (domain, include-subdomains, path, secure,
/// expiry as Unix seconds, name, value); `#HttpOnly_` before the domain marks HttpOnly; other
/// lines starting with `#`, and blank lines, are comments.
public enum NetscapeCookieFile {
    /// A line that is not a cookie.
    public struct LineError: Error, CustomStringConvertible, Equatable {
        /// The line's number, from 1.
        public let line: Int
        /// What is wrong with the line.
        public let reason: String
        /// `cookies file line N: REASON`.
        public var description: String { "cookies file line \(line): \(reason)" }
        /// An error for line `line`.
        public init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }
    }

    /// The cookies in `text`, in file order. Expiry 0 means a session cookie.
    /// - Throws: ``LineError`` for the first malformed line (nothing is half-read).
    public static func parse(_ text: String) throws -> [Cookie] {
        var cookies: [Cookie] = []
        // Lines split on the newline scalar: as Characters, "\r\n" is one grapheme that is not
        // "\n", and a file with Windows line ends would read as one comment line.
        for (index, rawLine) in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var scalars = String.UnicodeScalarView(rawLine)
            if scalars.last == "\r" { scalars.removeLast() }
            // The markers are bytes too: `#` followed by a combining mark is still a comment.
            var httpOnly = false
            let marker = "#HttpOnly_".unicodeScalars
            if scalars.starts(with: marker) {
                httpOnly = true
                scalars.removeFirst(marker.count)
            } else if scalars.first == "#" || String(scalars).trimmingCharacters(in: .whitespaces).isEmpty {
                continue
            }
            let line = String(scalars)
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 7 else {
                throw LineError(line: index + 1, reason: "expected 7 tab-separated fields, found \(fields.count)")
            }
            // No control character in any field, as in a Set-Cookie header: a value ending in a bare
            // "\r" could not be written back apart from a CRLF line end (found by the cookie-file
            // fuzz target's round trip).
            guard !line.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
                throw LineError(line: index + 1, reason: "a field holds a control character")
            }
            guard let expiry = Int64(fields[4]), expiry >= 0 else {
                throw LineError(line: index + 1, reason: "expiry '\(fields[4])' is not Unix seconds")
            }
            let domain = fields[0]
            guard !domain.isEmpty, !fields[5].isEmpty else {
                throw LineError(line: index + 1, reason: "a cookie needs a domain and a name")
            }
            let subdomains = fields[1].uppercased() == "TRUE"
            cookies.append(Cookie(
                name: fields[5], value: fields[6], domain: domain, path: fields[2].isEmpty ? "/" : fields[2],
                expires: expiry == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(expiry)),
                secure: fields[3].uppercased() == "TRUE", httpOnly: httpOnly,
                hostOnly: !(subdomains || domain.unicodeScalars.first == ".")))
        }
        return cookies
    }
}
