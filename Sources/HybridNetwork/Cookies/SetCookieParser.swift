import Foundation
import HybridHealth

/// The `Set-Cookie` parsing algorithm of RFC 6265 §5.2, exactly: one header is one cookie (a
/// comma never splits it — `Expires` dates contain commas), attribute names are matched
/// case-insensitively, values on flag attributes are ignored (`Secure=yes` is `Secure`),
/// invalid attribute values drop only that attribute, and later attributes win.
///
/// Two refinements from RFC 6265bis, because hostile input must not get further than in a
/// browser: a header containing a control character (other than tab) is rejected whole, and so
/// is one whose name and value together exceed 4096 bytes; attribute values over 1024 bytes are
/// ignored.
public enum SetCookieParser {
    /// The most bytes of name plus value a cookie may carry (RFC 6265bis §5.6 step 3).
    public static let maximumNameValueBytes = 4096
    /// The most bytes an attribute value may carry (RFC 6265bis §5.6 step 4).
    public static let maximumAttributeValueBytes = 1024

    /// Parses one `Set-Cookie` header value.
    /// - Returns: the cookie, or `nil` when §5.2 says to ignore the header (no `=` in the
    ///   name-value pair, an empty name, a control character, an oversized pair).
    public static func parse(_ header: String) -> SetCookie? {
        // §5.2 splits octets, so this reads Unicode scalars, never Characters: a combining mark
        // after `=` or `;` makes one grapheme with it, which would hide the separator (and make the
        // attributes after it part of the value).
        let scalars = Array(header.unicodeScalars)
        guard !scalars.contains(where: isForbiddenControl) else { return nil }
        let pairEnd = scalars.firstIndex(of: ";") ?? scalars.endIndex
        let pair = scalars[..<pairEnd]
        guard let equals = pair.firstIndex(of: "=") else { return nil }
        let name = trimWhitespace(pair[..<equals])
        let value = trimWhitespace(pair[(equals + 1)...])
        guard !name.isEmpty, text(name).utf8.count + text(value).utf8.count <= maximumNameValueBytes else { return nil }
        var cookie = SetCookie(name: text(name), value: text(value))
        var rest = scalars[pairEnd...]
        while !rest.isEmpty {
            rest = rest.dropFirst() // the ";"
            let end = rest.firstIndex(of: ";") ?? rest.endIndex
            let attribute = rest[..<end]
            rest = rest[end...]
            let attributeName: ArraySlice<Unicode.Scalar>
            let attributeValue: ArraySlice<Unicode.Scalar>
            if let equals = attribute.firstIndex(of: "=") {
                attributeName = trimWhitespace(attribute[..<equals])
                attributeValue = trimWhitespace(attribute[(equals + 1)...])
            } else {
                attributeName = trimWhitespace(attribute)
                attributeValue = []
            }
            let valueText = text(attributeValue)
            guard valueText.utf8.count <= maximumAttributeValueBytes else { continue }
            apply(text(attributeName).lowercased(), valueText, to: &cookie)
        }
        return cookie
    }

    private static func apply(_ name: String, _ value: String, to cookie: inout SetCookie) {
        switch name {
        case "expires":
            if let date = CookieDate.parse(value) { cookie.expires = date }
        case "max-age":
            if let seconds = parseMaxAge(value) { cookie.maxAge = seconds }
        case "domain":
            // §5.2.3: an empty value is ignored entirely; a leading dot is dropped.
            guard !value.isEmpty else { return }
            let domain = value.unicodeScalars.first == "." ? String(value.unicodeScalars.dropFirst()) : value
            cookie.domain = domain.lowercased()
        case "path":
            // §5.2.4: anything not starting with "/" means the default-path.
            cookie.path = value.unicodeScalars.first == "/" ? value : nil
        case "secure":
            cookie.secure = true
        case "httponly":
            cookie.httpOnly = true
        case "samesite":
            switch value.lowercased() {
            case "strict": cookie.sameSite = .strict
            case "lax": cookie.sameSite = .lax
            case "none": cookie.sameSite = .none
            default: cookie.sameSite = .unspecified
            }
        default:
            break // unknown attributes are ignored
        }
    }

    /// §5.2.2: a DIGIT or "-" first, DIGITs after, else the attribute is ignored. Values too large
    /// for an `Int` saturate (they mean "practically never" either way).
    static func parseMaxAge(_ value: String) -> Int? {
        guard let first = value.utf8.first, first == UInt8(ascii: "-") || isDigit(first) else { return nil }
        let digits = first == UInt8(ascii: "-") ? value.utf8.dropFirst() : value.utf8[...]
        guard !digits.isEmpty, digits.allSatisfy(isDigit) else { return nil }
        let negative = first == UInt8(ascii: "-")
        var magnitude = 0
        for digit in digits {
            let (times, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int(digit - 0x30))
            if overflow1 || overflow2 { return negative ? Int.min : Int.max }
            magnitude = sum
        }
        return negative ? -magnitude : magnitude
    }

    /// WSP = SP / HTAB: the only whitespace §5.2 trims.
    static func trimWhitespace(_ text: ArraySlice<Unicode.Scalar>) -> ArraySlice<Unicode.Scalar> {
        let isWhitespace = { (scalar: Unicode.Scalar) in scalar == " " || scalar == "\t" }
        guard let start = text.firstIndex(where: { !isWhitespace($0) }) else { return text[text.endIndex...] }
        let end = text.lastIndex(where: { !isWhitespace($0) }) ?? start
        return text[start...end]
    }

    private static func text(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        String(String.UnicodeScalarView(scalars))
    }

    private static func isForbiddenControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar.value != 0x09) || scalar.value == 0x7F
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
