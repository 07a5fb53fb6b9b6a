import Foundation

/// How long a CDN edge and a client may keep each file of a package repository: the one table
/// behind `hybrid serve`, the nginx and Varnish configurations in `deploy/` and
/// docs/offline-packages.md ("Serving at scale").
///
/// - **Immutable**: what is named by its content or by a version that is never rewritten — blobs
///   and patches (`blobs/AB/<sha256>`) and a version's manifest, its signature and its compressed copy
///   (`packages/ID/N/manifest.json`, `.sig`, `.zlib`; a pointer names the manifest's SHA-256, so a
///   manifest that differed would be refused anyway). Cached for a year, never revalidated.
/// - **Short-lived**: what a publisher rewrites in place — pointers (`packages/ID/latest.json`), rollout
///   documents (`packages/ID/rollout.json`), their signatures, `index.json`, key rotation statements
///   (written once, but a publisher must be able to correct one) and remote config (`config/…`).
///   Cached for ``shortLifetime`` seconds, then revalidated with the `ETag`/`Last-Modified` every
///   response carries (a 304 costs the origin no body). A halt reaches every install within that time.
/// - Anything else (a static site served from the same directory): `no-cache`, revalidated each time.
public enum RepositoryCaching {
    /// The class of a repository file.
    public enum Lifetime: String, Sendable, CaseIterable {
        /// Content-addressed or versioned: never changes once published.
        case immutable
        /// Rewritten in place by the publisher: cached briefly, then revalidated.
        case shortLived
        /// Not a repository file: revalidated on every use.
        case revalidate
    }

    /// Seconds a pointer, rollout document or config may be served from a cache without asking the origin.
    public static let shortLifetime = 60

    /// `Cache-Control` of each class.
    public static func cacheControl(_ lifetime: Lifetime) -> String {
        switch lifetime {
        case .immutable: "public, max-age=31536000, immutable"
        case .shortLived: "public, max-age=\(shortLifetime)"
        case .revalidate: "no-cache"
        }
    }

    /// `Cache-Control` for the file at `path` (relative to the repository root, `/` separated,
    /// with or without a leading `/`).
    public static func cacheControl(forPath path: String) -> String { cacheControl(lifetime(ofPath: path)) }

    /// The class of the file at `path` (relative to the repository root).
    public static func lifetime(ofPath path: String) -> Lifetime {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch segments.count {
        case 1 where segments[0] == "index.json":
            return .shortLived
        case 3 where segments[0] == "blobs":
            return isHex(segments[1], count: 2) && isHex(segments[2], count: 64) && segments[2].hasPrefix(segments[1])
                ? .immutable : .revalidate
        case 3 where segments[0] == "packages" && ["latest.json", "latest.json.sig", "rollout.json", "rollout.json.sig"].contains(segments[2]):
            return .shortLived
        case 4 where segments[0] == "packages" && !segments[2].isEmpty && segments[2].allSatisfy(\.isASCIIDigit):
            return ["manifest.json", "manifest.json.sig", "manifest.json.zlib"].contains(segments[3]) ? .immutable : .revalidate
        case 2 where segments[0] == "keys" && segments[1].hasPrefix("rotation-"):
            return .shortLived
        default:
            return segments.first == "config" && segments.count > 1 ? .shortLived : .revalidate
        }
    }

    private static func isHex(_ text: String, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
