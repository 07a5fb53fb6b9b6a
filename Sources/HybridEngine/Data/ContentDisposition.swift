import Foundation

/// A `Content-Disposition` header value (RFC 6266): whether the response is an attachment and the
/// file name it suggests, `filename*` (RFC 5987/8187, percent-encoded UTF-8 or ISO-8859-1)
/// preferred over `filename`. The one parser every engine adapter uses.
///
/// The name is the server's, as sent: it may climb (`../x`), hold control characters or be very
/// long. ``safeFilename`` (and ``Download``) make it a plain name that stays in the directory the
/// app chooses (``DownloadFilename/sanitized(_:)``).
public struct ContentDisposition: Sendable, Equatable {
    /// The disposition type, lowercased (`attachment`, `inline`, or an extension type).
    public var type: String
    /// The file name the header suggests, decoded but not sanitized; `nil` when it names none.
    public var filename: String?

    /// The disposition is `attachment`: the server wants the response saved, not shown.
    public var isAttachment: Bool { type == "attachment" }

    /// ``filename`` made safe to join to a directory of the app's; `nil` when the header names none.
    public var safeFilename: String? { filename.map(DownloadFilename.sanitized) }

    /// Parses a header value; `nil` for a missing value or one without a disposition type.
    /// Parameters it cannot read are skipped; an unterminated quoted string runs to the end.
    /// - Parameter value: The `Content-Disposition` header's value.
    public init?(_ value: String?) {
        guard let value else { return nil }
        var scanner = Scanner(Array(value.unicodeScalars))
        let type = scanner.token().lowercased()
        guard !type.isEmpty else { return nil }
        self.type = type
        var plain: String?
        var extended: String?
        while scanner.skip(";") {
            let name = scanner.token().lowercased()
            guard scanner.skip("=") else {
                scanner.skipParameter()
                continue
            }
            let text = scanner.parameterValue()
            switch name {
            case "filename" where plain == nil: plain = text
            case "filename*" where extended == nil: extended = Self.decodeExtended(text)
            default: break
            }
        }
        let chosen = extended ?? plain
        filename = chosen?.isEmpty == false ? chosen : nil
    }

    /// The value to send when a response must be downloaded: the header as it is when it already
    /// says `attachment`, else `attachment` keeping the file name it named (as `filename*`).
    /// - Parameter existing: The response's `Content-Disposition` value, if any.
    /// - Returns: A `Content-Disposition` value whose type is `attachment`.
    public static func attachment(keeping existing: String?) -> String {
        let parsed = ContentDisposition(existing)
        if let existing, parsed?.isAttachment == true { return existing }
        guard let name = parsed?.filename,
              let encoded = name.addingPercentEncoding(withAllowedCharacters: attrChars) else { return "attachment" }
        return "attachment; filename*=UTF-8''" + encoded
    }

    /// RFC 5987 `attr-char`: what an `ext-value` may carry without percent-encoding.
    private static let attrChars = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~")

    /// `charset'[language]'value-chars`: UTF-8 or ISO-8859-1 (any case), percent-decoded; `nil`
    /// for another charset or a malformed value (then `filename`, if any, is used).
    static func decodeExtended(_ text: String) -> String? {
        let parts = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var bytes: [UInt8] = []
        var utf8 = Array(parts[2].utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard utf8.count >= 2, let high = hexValue(utf8.popFirst()!), let low = hexValue(utf8.popFirst()!) else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        switch parts[0].lowercased() {
        case "utf-8": return String(bytes: bytes, encoding: .utf8)
        case "iso-8859-1": return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default: return nil
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Reads the header's grammar: tokens, `;`, `=`, quoted strings with `\` escapes.
    private struct Scanner {
        package let scalars: [Unicode.Scalar]
        package var index = 0

        package init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        private mutating func skipSpaces() {
            while let scalar = current, scalar == " " || scalar == "\t" { index += 1 }
        }

        /// Skips `character` (after spaces); whether it was there.
        package mutating func skip(_ character: Unicode.Scalar) -> Bool {
            skipSpaces()
            guard current == character else { return false }
            index += 1
            return true
        }

        /// A run of characters up to a separator, trimmed.
        package mutating func token() -> String {
            skipSpaces()
            var text = String.UnicodeScalarView()
            while let scalar = current, scalar != ";", scalar != "=", scalar != "\"" {
                text.append(scalar)
                index += 1
            }
            return String(text).trimmingCharacters(in: .whitespaces)
        }

        /// A parameter's value: a quoted string (unescaped) or a token.
        mutating func parameterValue() -> String {
            skipSpaces()
            guard current == "\"" else { return token() }
            index += 1
            var text = String.UnicodeScalarView()
            while let scalar = current {
                index += 1
                if scalar == "\"" { break }
                if scalar == "\\", let escaped = current {
                    text.append(escaped)
                    index += 1
                } else {
                    text.append(scalar)
                }
            }
            skipParameter()
            return String(text)
        }

        /// Skips to the next `;` that is not inside a quoted string.
        mutating func skipParameter() {
            var quoted = false
            while let scalar = current {
                if scalar == "\"" { quoted.toggle() }
                if scalar == ";" && !quoted { return }
                if scalar == "\\" && quoted { index += 1 }
                index += 1
            }
        }
    }
}
