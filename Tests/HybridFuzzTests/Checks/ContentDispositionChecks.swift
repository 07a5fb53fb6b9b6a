import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

/// `Content-Disposition` (RFC 6266, RFC 5987 `filename*`) and the download name made from it.
///
/// - A parsed header has a non-empty, lower-case type and never an empty file name.
/// - The safe file name stays in the directory it is joined to: no slash or backslash, no
///   control character, not `.` or `..`, no leading dot, at most `DownloadFilename.maxBytes`.
/// - Round trip: `attachment(keeping:)` gives an `attachment` that names the same file.
enum ContentDispositionChecks {
    static func check(_ bytes: [UInt8]) throws {
        let value = text(bytes)
        try attachment(value)
        try sanitized(value)
        guard let parsed = ContentDisposition(value) else { return }
        try require(!parsed.type.isEmpty && parsed.type == parsed.type.lowercased(), "type '\(parsed.type)'")
        if let name = parsed.filename { try require(!name.isEmpty, "an empty file name") }
        if let safe = parsed.safeFilename { try safeName(safe, from: parsed.filename ?? "") }
    }

    static func attachment(_ value: String) throws {
        let made = ContentDisposition.attachment(keeping: value)
        guard let reparsed = ContentDisposition(made) else {
            throw FuzzViolation(description: "attachment(keeping:) made an unparsable value: \(made.prefix(200))")
        }
        try require(reparsed.isAttachment, "attachment(keeping:) made type \(reparsed.type)")
        let original = ContentDisposition(value)
        if original?.isAttachment != true, let name = original?.filename {
            try require(reparsed.filename == name, "the file name changed: \(name.debugDescription) -> \(String(describing: reparsed.filename).debugDescription)")
        }
    }

    static func sanitized(_ name: String) throws {
        try safeName(DownloadFilename.sanitized(name), from: name)
    }

    static func safeName(_ safe: String, from name: String) throws {
        let what = "sanitized(\(name.debugDescription.prefix(120))) = \(safe.debugDescription.prefix(120))"
        try require(!safe.isEmpty, "\(what) is empty")
        try require(safe != "." && safe != "..", "\(what) names a directory")
        try require(!safe.contains("/") && !safe.contains("\\"), "\(what) has a separator")
        try require(!safe.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) }, "\(what) has a control character")
        try require(safe.utf8.first != UInt8(ascii: "."), "\(what) starts with a dot")
        try require(safe.utf8.count <= DownloadFilename.maxBytes, "\(what) is \(safe.utf8.count) bytes")
    }
}
