import Foundation
import HybridEngine
import HybridHealth

/// The document-start script that makes a document's cookies visible to `document.cookie`
/// before any page script runs — for engines whose cookie store may lag behind the app's jar.
///
/// What it carries is decided here, in Swift, by the jar: exactly the cookies that match the
/// document URL and are not HttpOnly (Secure ones only for a secure scheme). The script can
/// therefore never leak another host's cookie or an HttpOnly one: they are not in its text.
/// It only runs on the document's own host (an engine allow-list and a check in the script),
/// only fills in cookies the document does not already see (so it never overrides what the
/// engine's store or the response already set), and stops applying after ``validity`` so a
/// reload much later cannot resurrect a cookie deleted since.
public struct DocumentCookieScript: Sendable {
    /// The document the script is for.
    public let url: URL
    /// The cookies it sets, in §5.4 order.
    public let cookies: [Cookie]
    /// When the script was made; it does nothing after `created + validity`.
    public let created: Date
    /// How long after ``created`` the script still applies (seconds).
    public let validity: TimeInterval

    /// The script for `url` from `jar`'s current state.
    public init(for url: URL, jar: CookieJar, validity: TimeInterval = 30, now: Date = Date()) {
        self.url = url
        self.cookies = jar.cookies(for: url, via: .script)
        self.created = now
        self.validity = validity
    }

    /// The `document.cookie` assignment for `cookie`: the same name, value, path, domain,
    /// expiry, Secure and SameSite, so the engine stores the very cookie the jar holds.
    public static func assignment(for cookie: Cookie) -> String {
        var parts = ["\(cookie.name)=\(cookie.value)", "path=\(cookie.path)"]
        if !cookie.hostOnly { parts.append("domain=\(cookie.domain)") }
        if let expires = cookie.expires {
            parts.append("expires=\(Self.httpDate(expires))")
        }
        if cookie.secure { parts.append("secure") }
        if cookie.sameSite != .unspecified { parts.append("samesite=\(cookie.sameSite.rawValue)") }
        return parts.joined(separator: "; ")
    }

    /// The script's JavaScript source.
    public var source: String {
        let host = CookieMatch.canonicalHost(url) ?? ""
        let entries = cookies.map { "[\(Self.jsString($0.name)), \(Self.jsString(Self.assignment(for: $0)))]" }
        let deadline = Int64((created.timeIntervalSince1970 + validity) * 1000)
        return """
            (function () {
              if (location.hostname.replace(/^\\[|\\]$/g, '').toLowerCase() !== \(Self.jsString(host))) return;
              if (Date.now() > \(deadline)) return;
              var present = {};
              document.cookie.split(';').forEach(function (pair) {
                var name = pair.split('=')[0].trim();
                if (name) present[name] = true;
              });
              [\(entries.joined(separator: ", "))].forEach(function (entry) {
                if (!present[entry[0]]) document.cookie = entry[1];
              });
            })();
            """
    }

    /// The user script: document start, main frame, page world (where `document.cookie` lives),
    /// limited to the document's scheme and host.
    public var userScript: UserScript {
        let host = CookieMatch.canonicalHost(url) ?? ""
        let authority = host.contains(":") ? "[\(host)]" : host
        return UserScript(source: source, injectionTime: .documentStart, frames: .mainFrameOnly, world: .page,
                          allowList: ["\(url.scheme?.lowercased() ?? "http")://\(authority)/*"])
    }

    /// A JavaScript string literal (JSON), with `<` and line separators escaped so the text is
    /// safe anywhere a script can appear.
    static func jsString(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let data = (try? encoder.encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
            .replacingOccurrences(of: "<", with: "\\u003c")
            .replacingOccurrences(of: "\u{2028}", with: "\\u2028")
            .replacingOccurrences(of: "\u{2029}", with: "\\u2029")
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
