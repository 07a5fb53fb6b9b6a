import Foundation
import HybridBase
import HybridEngine

/// The storage model (RFC 6265 §5.3) and its RFC 6265bis refinements.
extension CookieJar {
    /// §5.3 steps 2–10: turns a parsed header into a cookie for `url`, or refuses it.
    func makeCookie(_ parsed: SetCookie, for url: URL, via source: Source) throws -> Cookie {
        let reject = { (reason: String) in HybridError.network(.cookieRejected(name: parsed.name, reason: reason)) }
        guard let host = CookieMatch.canonicalHost(url) else { throw reject("the URL \(url) has no host") }
        var domain = parsed.domain ?? ""
        if !domain.isEmpty, CookieMatch.isIPAddress(host) {
            // An IP host can only name itself; the cookie then stays with that exact host.
            guard domain == host else { throw reject("Domain=\(domain) from IP host \(host)") }
            domain = ""
        }
        if !domain.isEmpty, policy.isPublicSuffix(domain) {
            guard domain == host else { throw reject("Domain=\(domain) is a public suffix") }
            domain = ""
        }
        let hostOnly = domain.isEmpty
        if !hostOnly, !CookieMatch.domainMatches(host, domain: domain) {
            throw reject("Domain=\(domain) does not domain-match the request host \(host)")
        }
        let secureOrigin = CookieMatch.isSecure(url, secureSchemes: policy.secureSchemes)
        if parsed.secure, policy.requireSecureOriginForSecure, !secureOrigin {
            throw reject("a Secure cookie from the insecure origin \(url.scheme ?? "")://\(host)")
        }
        if parsed.httpOnly, source == .script { throw reject("a script cannot set an HttpOnly cookie") }
        let path = parsed.path ?? CookieMatch.defaultPath(url)
        let name = parsed.name.lowercased()
        if policy.requireSecureOriginForSecure, name.hasPrefix("__secure-"), !(parsed.secure && secureOrigin) {
            throw reject("a __Secure- cookie needs Secure and a secure origin")
        }
        if policy.requireSecureOriginForSecure, name.hasPrefix("__host-"),
           !(parsed.secure && secureOrigin && hostOnly && parsed.path == "/") {
            throw reject("a __Host- cookie needs Secure, a secure origin, no Domain and Path=/")
        }
        return Cookie(name: parsed.name, value: parsed.value, domain: hostOnly ? host : domain, path: path,
                      expires: parsed.expiry(now: clock()), secure: parsed.secure, httpOnly: parsed.httpOnly,
                      hostOnly: hostOnly, sameSite: parsed.sameSite)
    }

    /// §5.3 step 11 for a cookie that arrived from `url`, with the RFC 6265bis rule that an
    /// insecure origin leaves Secure cookies alone.
    func insert(_ cookie: Cookie, from url: URL, via source: Source) throws {
        let secureOrigin = CookieMatch.isSecure(url, secureSchemes: policy.secureSchemes)
        let changes = try lock.withLock { () -> [Change] in
            if policy.protectSecureCookies, !secureOrigin, !cookie.secure {
                let shadowed = entries.values.contains { entry in
                    entry.cookie.secure && entry.cookie.name == cookie.name
                        && (CookieMatch.domainMatches(entry.cookie.domain, domain: cookie.domain)
                            || CookieMatch.domainMatches(cookie.domain, domain: entry.cookie.domain))
                        && CookieMatch.pathMatches(cookie.path, cookiePath: entry.cookie.path)
                }
                if shadowed {
                    throw HybridError.network(.cookieRejected(name: cookie.name, reason: "an insecure origin cannot replace a Secure cookie"))
                }
            }
            if source == .script, entries[cookie.identity]?.cookie.httpOnly == true {
                throw HybridError.network(.cookieRejected(name: cookie.name, reason: "a script cannot replace an HttpOnly cookie"))
            }
            return insertLocked(cookie, now: clock())
        }
        publish(changes)
    }

    /// Replaces the cookie with the same identity, keeping its creation time; an expired cookie
    /// only removes. Call with the lock held.
    func insertLocked(_ cookie: Cookie, now: Date) -> [Change] {
        let old = entries.removeValue(forKey: cookie.identity)
        guard !cookie.isExpired(at: now) else { return old.map { [.removed($0.cookie)] } ?? [] }
        let sequence: UInt64
        if let old {
            sequence = old.sequence
        } else {
            sequence = nextSequence
            nextSequence += 1
        }
        entries[cookie.identity] = Entry(cookie: cookie, creation: old?.creation ?? now, sequence: sequence)
        if old?.cookie == cookie { return [] }
        return [.stored(cookie)]
    }

    /// Removes expired cookies (§5.3: "the user agent MUST evict all expired cookies"). Lock held.
    func evictExpiredLocked(now: Date) -> [Change] {
        let expired = entries.values.filter { $0.cookie.isExpired(at: now) }.sorted { $0.sequence < $1.sequence }
        for entry in expired { entries.removeValue(forKey: entry.cookie.identity) }
        return expired.map { .removed($0.cookie) }
    }

    /// Evicts expired cookies now (and tells observers).
    public func removeExpired() {
        publish(lock.withLock { evictExpiredLocked(now: clock()) })
    }
}
