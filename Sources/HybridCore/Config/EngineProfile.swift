import Foundation
import HybridBase

/// A named engine configuration in a config's registry (the "dual-core" idea: the server picks,
/// per URL, which engine a page gets).
///
/// `kind` says which adapter builds it (`webkit`, `blink`); `options` are that adapter's to read.
/// A new engine plugs in by registering a kind with the app — no policy code changes.
public struct EngineProfile: Sendable, Hashable, Codable {
    /// The adapter: `webkit` (WebKitGTK / WKWebView), `blink` (Chromium), or another registered one.
    public var kind: String
    /// Adapter-specific settings (user agent suffix, headless, …).
    public var options: [String: JSONValue]

    /// A profile for the adapter `kind`, with its settings.
    public init(kind: String, options: [String: JSONValue] = [:]) {
        self.kind = kind
        self.options = options
    }

    private enum CodingKeys: String, CodingKey { case kind, options }

    /// Decodes a profile; missing `options` are empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try c.decode(String.self, forKey: .kind)
        options = try c.decodeIfPresent([String: JSONValue].self, forKey: .options) ?? [:]
    }
}
