import Foundation
import HybridEngine
import HybridHealth
import HybridHTTP

/// Header rules of the request proxy: what a page may not set, and how responses read.
enum ProxyHeaders {
    /// Headers a page cannot set (the Fetch standard's forbidden request-header names): the
    /// proxy sets them (`Cookie`, `Origin`, `Referer`), or the transport does.
    static let forbidden: Set<String> = [
        "accept-charset", "accept-encoding", "access-control-request-headers", "access-control-request-method",
        "connection", "content-length", "cookie", "cookie2", "date", "dnt", "expect", "host", "keep-alive",
        "origin", "referer", "set-cookie", "te", "trailer", "transfer-encoding", "upgrade", "via",
    ]

    /// Whether `value` is a plain `Accept-Language` list (language tags, `*`, `;q=` weights, commas
    /// and spaces; at most 512 bytes): what the page script sends as the engine's, and nothing else.
    static func isLanguageList(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 512 && value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: "."),
                 UInt8(ascii: " "), UInt8(ascii: "*"):
                true
            default:
                false
            }
        }
    }

    /// Whether the page may not set header `name` (the forbidden names, and `Proxy-…`/`Sec-…`).
    static func isForbidden(_ name: String) -> Bool {
        let lower = name.lowercased()
        return forbidden.contains(lower) || lower.hasPrefix("proxy-") || lower.hasPrefix("sec-")
    }

    /// The headers a redirect that turns the request into a GET drops with the body.
    static let requestBodyHeaders: Set<String> = ["content-encoding", "content-language", "content-location", "content-type"]

    /// Response headers a page never sees (as in a browser).
    static let hidden: Set<String> = ["set-cookie", "set-cookie2"]

    /// The response's headers as `[name, value]` pairs, as the Fetch standard's "sort and
    /// combine" gives them to pages: names lower-cased and sorted, the values of one name (in any
    /// spelling) joined with `, ` in the order they arrived, an empty value kept; hidden ones
    /// left out.
    static func pairs(_ head: HTTPHead) -> [[String]] {
        var combined: [String: [String]] = [:]
        for (spelling, value) in head.fields {
            let name = spelling.lowercased()
            guard !hidden.contains(name) else { continue }
            combined[name, default: []].append(value)
        }
        return combined.keys.sorted().map { [$0, combined[$0]!.joined(separator: ", ")] }
    }

    /// Every `Set-Cookie` value of the response (a field Foundation joined is split again).
    static func setCookieValues(_ head: HTTPHead) -> [String] {
        head.values("Set-Cookie").flatMap(splitSetCookie)
    }

    /// Splits `Set-Cookie` values that Foundation joined with `, ` into one field.
    ///
    /// A comma also appears inside `Expires=Wed, 09 Jun 2021 …`, so a comma only starts a new
    /// cookie when what follows it, up to the next `;`, is a `name=value` pair whose name has no
    /// spaces: an expiry date's remainder (` 09 Jun 2021 10:18:14 GMT`) never is.
    static func splitSetCookie(_ combined: String) -> [String] {
        var parts: [String] = []
        var current = Substring()
        var rest = Substring(combined)
        while let comma = rest.firstIndex(of: ",") {
            let after = rest[rest.index(after: comma)...]
            let segment = after.prefix { $0 != ";" && $0 != "," }
            current += rest[..<comma]
            if let equals = segment.firstIndex(of: "=") {
                let name = segment[..<equals].trimmingCharacters(in: .whitespaces)
                if !name.isEmpty, !name.contains(" ") {
                    parts.append(current.trimmingCharacters(in: .whitespaces))
                    current = Substring()
                    rest = after
                    continue
                }
            }
            current += ","
            rest = after
        }
        current += rest
        let last = current.trimmingCharacters(in: .whitespaces)
        if !last.isEmpty { parts.append(last) }
        return parts.filter { !$0.isEmpty }
    }

    /// Whether a body of this Content-Type is text in UTF-8 (or in no declared charset, where
    /// the bytes are then checked to be UTF-8 before travelling as text).
    static func isUTF8Text(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let parts = contentType.lowercased().split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let type = parts.first else { return false }
        let textual = type.hasPrefix("text/") || type.hasSuffix("/json") || type.hasSuffix("+json")
            || type.hasSuffix("/xml") || type.hasSuffix("+xml") || type.hasSuffix("/javascript")
            || type == "application/x-www-form-urlencoded"
        guard textual else { return false }
        let charset = parts.dropFirst().first { $0.hasPrefix("charset=") }?.dropFirst(8).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        return charset == nil || charset == "utf-8" || charset == "utf8"
    }

    /// The standard reason phrase for `status` (Foundation on Linux does not keep the server's).
    static func reasonPhrase(_ status: Int) -> String {
        let phrases = [
            200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 206: "Partial Content",
            301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
            307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized",
            403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict", 410: "Gone",
            413: "Content Too Large", 415: "Unsupported Media Type", 418: "I'm a teapot", 422: "Unprocessable Content",
            429: "Too Many Requests", 500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
            503: "Service Unavailable", 504: "Gateway Timeout",
        ]
        return phrases[status] ?? ""
    }
}
