import Foundation
import HybridEngine

/// One parsed `Set-Cookie` header (or `document.cookie` assignment): the name-value pair and
/// the attributes that RFC 6265 §5.2 keeps, before the storage model (§5.3) judges it.
public struct SetCookie: Sendable, Hashable {
    /// The cookie's name; never empty in a header ``SetCookieParser`` accepted.
    public var name: String
    /// The cookie's value, with surrounding whitespace removed.
    public var value: String
    /// The last `Expires` that parsed as a cookie-date (§5.2.1).
    public var expires: Date?
    /// The last valid `Max-Age`, in seconds (§5.2.2); zero or negative means "expire now".
    public var maxAge: Int?
    /// The last non-empty `Domain`, lower-cased and without its leading dot (§5.2.3).
    public var domain: String?
    /// The last `Path`; `nil` when absent or when the last one did not start with `/` — both
    /// mean the default-path of the request URL (§5.2.4).
    public var path: String?
    /// A `Secure` attribute was present.
    public var secure: Bool
    /// An `HttpOnly` attribute was present.
    public var httpOnly: Bool
    /// The last `SameSite` (RFC 6265bis); unknown values mean `.unspecified`.
    public var sameSite: Cookie.SameSite

    /// A parsed header from its parts.
    public init(name: String, value: String, expires: Date? = nil, maxAge: Int? = nil, domain: String? = nil,
                path: String? = nil, secure: Bool = false, httpOnly: Bool = false, sameSite: Cookie.SameSite = .unspecified) {
        self.name = name
        self.value = value
        self.expires = expires
        self.maxAge = maxAge
        self.domain = domain
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
    }

    /// When the cookie expires (§5.3 step 3): `Max-Age` wins over `Expires`; `nil` = a session cookie.
    /// A `Max-Age` of zero or less gives the distant past, so storing it deletes the cookie.
    public func expiry(now: Date) -> Date? {
        if let maxAge {
            guard maxAge > 0 else { return .distantPast }
            return now.addingTimeInterval(TimeInterval(maxAge))
        }
        return expires
    }
}
