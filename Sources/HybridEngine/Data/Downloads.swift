import Foundation
import HybridBase

/// A download the engine started: an `<a download>`, a `blob:` or `data:` URL, a
/// `Content-Disposition: attachment` response, or a navigation response the engine cannot show
/// (answered ``NavigationResponsePolicy/download``). The app decides where it goes.
public struct Download: Sendable, Equatable {
    /// The engine's identifier for this download, unique within the view (events carry it).
    public var id: String
    /// Where the bytes come from (`https:`, `blob:`, `data:`, a custom scheme).
    public var sourceURL: URL
    /// The origin of the page or frame that started it (`nil` when the engine does not say).
    public var origin: BridgeOrigin?
    /// A file name, made safe: only a last path component, never `.`, `..`, empty, hidden or with
    /// control characters or slashes (``DownloadFilename/sanitized(_:)``).
    public var suggestedFilename: String
    /// The MIME type of the response, when known.
    public var mimeType: String?
    /// The size the response announced (`Content-Length`), when known.
    public var expectedLength: Int64?

    /// A download as an engine adapter reports it; `suggestedFilename` is sanitized here.
    public init(id: String, sourceURL: URL, origin: BridgeOrigin? = nil, suggestedFilename: String,
                mimeType: String? = nil, expectedLength: Int64? = nil) {
        self.id = id
        self.sourceURL = sourceURL
        self.origin = origin
        self.suggestedFilename = DownloadFilename.sanitized(suggestedFilename)
        self.mimeType = mimeType
        self.expectedLength = expectedLength
    }

    /// The file for this download in `directory`: the sanitized suggested name, always inside
    /// `directory` whatever the page called the file.
    public func destination(in directory: URL) -> URL {
        directory.appendingPathComponent(suggestedFilename, isDirectory: false)
    }
}

/// Where a download goes.
public enum DownloadDecision: Sendable, Equatable {
    /// Write it to this file URL (replacing a file already there). The directory must exist.
    case save(to: URL)
    /// Do not download; nothing is written.
    case cancel
}

/// What happened to a download after it was decided.
public enum DownloadEvent: Sendable, Equatable {
    /// Bytes arrived: `received` so far, of `expected` when known.
    case progress(received: Int64, expected: Int64?)
    /// Complete: the file is at `file` (the destination the app chose).
    case finished(file: URL)
    /// It failed; nothing usable is at the destination.
    case failed(message: String)
    /// It was cancelled (by the app's decision, or the view closed before it was decided); nothing
    /// is at the destination. A download already placed keeps running when its view closes, and
    /// its later events are not reported (docs/data.md).
    case cancelled
}

/// File names from pages made safe to put in a directory of the app's.
public enum DownloadFilename {
    /// The name used when nothing is left of the page's.
    public static let fallback = "download"

    /// The longest name kept, in UTF-8 bytes (file systems allow 255).
    public static let maxBytes = 200

    /// The last path component of `name` (either slash), with control characters removed and
    /// leading dots and spaces stripped, cut to ``maxBytes`` keeping a short extension;
    /// ``fallback`` when nothing is left. `../../x` gives `x`.
    /// - Parameter name: The name the page or response suggested.
    /// - Returns: A name that stays in the directory it is joined to.
    public static func sanitized(_ name: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var scalars = String.UnicodeScalarView(last.unicodeScalars.filter {
            !CharacterSet.controlCharacters.contains($0) && $0 != ":"
        })
        // Stripped as scalars, not Characters: a combining mark after a leading dot makes one
        // Character of both, which would keep the dot (a hidden file).
        while let first = scalars.first, first == "." || first == " " { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "." { scalars.removeLast() }
        var cleaned = String(scalars)
        if cleaned.utf8.count > maxBytes { cleaned = shortened(cleaned) }
        return cleaned.isEmpty ? fallback : cleaned
    }

    /// `name` cut at a character boundary to at most ``maxBytes`` UTF-8 bytes, keeping an extension
    /// of up to 16 bytes (`report….pdf` stays a `.pdf`).
    private static func shortened(_ name: String) -> String {
        var stem = Substring(name)
        var suffix = Substring("")
        if let dot = name.lastIndex(of: "."), name[dot...].utf8.count <= 16 {
            stem = name[..<dot]
            suffix = name[dot...]
        }
        let budget = maxBytes - suffix.utf8.count
        var kept = 0
        var end = stem.startIndex
        for index in stem.indices {
            let size = stem[index].utf8.count
            if kept + size > budget { break }
            kept += size
            end = stem.index(after: index)
        }
        var cut = String(stem[..<end])
        while let last = cut.last, last == " " || last == "." { cut.removeLast() }
        return (cut.isEmpty ? fallback : cut) + suffix
    }
}

extension NavigationResponse {
    /// The response says `Content-Disposition: attachment`: the server wants it saved, not shown.
    public var isAttachment: Bool {
        headers.contains { $0.name.lowercased() == "content-disposition" && ContentDisposition($0.value)?.isAttachment == true }
    }
}
