import Foundation

/// Content types by file extension: the one table behind the offline packages (chosen at pack
/// time and written into the signed manifest), local directories served through a custom scheme
/// and `hybrid serve`. Text types carry `charset=utf-8`, because pages and packages are UTF-8 and
/// a missing charset makes engines guess; unknown files are `application/octet-stream`, never
/// sniffed as HTML.
///
/// A fixed table rather than the OS's (`/etc/mime.types`, UTType), so every device and server
/// gives the same file the same type.
public enum MediaTypes {
    /// The type of unknown files.
    public static let fallback = "application/octet-stream"

    package static let table: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8", "cjs": "text/javascript; charset=utf-8",
        "json": "application/json", "map": "application/json", "webmanifest": "application/manifest+json",
        "txt": "text/plain; charset=utf-8", "md": "text/markdown; charset=utf-8", "csv": "text/csv; charset=utf-8",
        "xml": "application/xml", "svg": "image/svg+xml", "xhtml": "application/xhtml+xml",
        "wasm": "application/wasm",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "avif": "image/avif", "ico": "image/x-icon", "bmp": "image/bmp",
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf", "eot": "application/vnd.ms-fontobject",
        "mp4": "video/mp4", "m4v": "video/mp4", "webm": "video/webm", "ogv": "video/ogg",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "ogg": "audio/ogg", "oga": "audio/ogg",
        "wav": "audio/wav", "flac": "audio/flac",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar",
    ]

    /// The type for any file path or name, by its extension (``fallback`` when unknown).
    public static func type(forPath path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return fallback }
        return table[name[name.index(after: dot)...].lowercased()] ?? fallback
    }
}

