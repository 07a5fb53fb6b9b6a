import HybridBase

/// What offline packages decide about a type: which types pay to compress at pack time and
/// which documents get the Content-Security-Policy (types come from ``MediaTypes``).
public enum PackageMediaTypes {
    /// The type for a path (``MediaTypes/fallback`` when unknown).
    public static func type(for path: PackagePath) -> String {
        MediaTypes.table[path.fileExtension] ?? MediaTypes.fallback
    }

    /// The type for any file path or name, by its extension (``MediaTypes/fallback`` when unknown).
    public static func type(forPath path: String) -> String { MediaTypes.type(forPath: path) }

    /// Whether compressing this type can pay: text-like formats yes; images, media, fonts
    /// (WOFF is already compressed) and archives no.
    public static func isCompressible(_ type: String) -> Bool {
        let base = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? type
        if base.hasPrefix("text/") { return true }
        return ["application/json", "application/manifest+json", "application/xml", "image/svg+xml",
                "application/xhtml+xml", "application/wasm", "font/ttf", "font/otf", "image/bmp",
                "application/vnd.ms-fontobject", "application/octet-stream", "image/x-icon"].contains(base)
    }

    /// Whether a document of this type gets the Content-Security-Policy header.
    static func isDocument(_ type: String) -> Bool {
        type.hasPrefix("text/html") || type.hasPrefix("application/xhtml+xml") || type.hasPrefix("image/svg+xml")
    }
}
