import Foundation
import HybridBase

/// A file's path inside a package: relative, normalised, and unable to escape the package root.
///
/// The same rules apply when packing a directory and when serving a request, so a path the
/// resolver refuses can never be in a package. A `PackagePath` is:
/// - relative (no leading `/`, no drive letter such as `C:`), non-empty, at most 1024 bytes;
/// - free of NUL, other control characters and backslashes (`\` is a separator on Windows);
/// - free of `..` segments (refused, never resolved, even when the result would stay inside);
/// - free of percent-escapes (`%2e`, `%2F`, `%25`…): a package path is stored decoded, and
///   request paths are decoded exactly once, so an escape surviving that is a double-encoding trick;
/// - in Unicode NFC; `.` and empty segments are dropped (`a//./b` → `a/b`).
///
/// ``collisionKey`` is the path case-folded, for refusing two files that one file system
/// (APFS, NTFS: case-insensitive) would store as one.
public struct PackagePath: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    /// The normalised path, segments joined by `/`.
    public let value: String

    /// Validates and normalises `raw`.
    /// - Throws: ``PackageFailure/invalidPath(path:reason:)``.
    public init(_ raw: String) throws {
        value = try Self.normalise(raw)
    }

    /// Validates a path taken from a request URL's percent-encoded path: decodes it once, then
    /// normalises it. `%2e%2e`, `..%2f` and `%252e` are all refused.
    /// - Throws: ``PackageFailure/invalidPath(path:reason:)``.
    public init(percentEncoded raw: String) throws {
        guard let decoded = raw.removingPercentEncoding else {
            throw HybridError.pkg(.invalidPath(path: raw, reason: "malformed percent-encoding"))
        }
        try self.init(decoded)
    }

    /// The key two paths share when they would collide on a case-insensitive file system.
    public var collisionKey: String { value.lowercased() }

    /// The last segment's extension, lower-cased (`"js"` for `a/b.min.JS`), or `""`.
    public var fileExtension: String {
        let last = value.split(separator: "/").last.map(String.init) ?? value
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return "" }
        return last[last.index(after: dot)...].lowercased()
    }

    /// The normalised path (``value``).
    public var description: String { value }

    /// Orders paths by their normalised text, as a manifest lists its files.
    public static func < (lhs: PackagePath, rhs: PackagePath) -> Bool { lhs.value < rhs.value }

    /// Decodes a path from a manifest; it must already be in normal form.
    /// - Throws: ``PackageFailure/invalidPath(path:reason:)`` when it is invalid or not normalised.
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        try self.init(raw)
        // A manifest must hold paths already in normal form: anything else was not written by us.
        guard value == raw else {
            throw HybridError.pkg(.invalidPath(path: raw, reason: "not in normal form"))
        }
    }

    /// Encodes the normalised path as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    private static func normalise(_ raw: String) throws -> String {
        func refuse(_ reason: String) -> HybridError { .pkg(.invalidPath(path: raw, reason: reason)) }
        guard !raw.isEmpty else { throw refuse("empty") }
        guard raw.utf8.count <= 1024 else { throw refuse("longer than 1024 bytes") }
        for scalar in raw.unicodeScalars {
            if scalar.value == 0 { throw refuse("contains NUL") }
            if scalar.value < 0x20 || scalar.value == 0x7f { throw refuse("contains a control character") }
            if scalar == "\\" { throw refuse("contains a backslash") }
        }
        if raw.hasPrefix("/") { throw refuse("absolute") }
        if Self.hasDriveLetter(raw) { throw refuse("absolute (drive letter)") }
        if Self.hasPercentEscape(raw) { throw refuse("contains a percent-escape (double encoding)") }

        let nfc = raw.precomposedStringWithCanonicalMapping
        var segments: [Substring] = []
        for segment in nfc.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": throw refuse("contains '..'")
            default: segments.append(segment)
            }
        }
        guard !segments.isEmpty else { throw refuse("names no file") }
        return segments.joined(separator: "/")
    }

    private static func hasDriveLetter(_ raw: String) -> Bool {
        let bytes = Array(raw.utf8.prefix(2))
        guard bytes.count == 2, bytes[1] == UInt8(ascii: ":") else { return false }
        return (bytes[0] | 0x20) >= UInt8(ascii: "a") && (bytes[0] | 0x20) <= UInt8(ascii: "z")
    }

    private static func hasPercentEscape(_ raw: String) -> Bool {
        let bytes = Array(raw.utf8)
        guard bytes.count >= 3 else { return false }
        for index in 0..<(bytes.count - 2) where bytes[index] == UInt8(ascii: "%") {
            if bytes[index + 1].isHexDigit && bytes[index + 2].isHexDigit { return true }
        }
        return false
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (self >= 0x30 && self <= 0x39) || ((self | 0x20) >= 0x61 && (self | 0x20) <= 0x66)
    }
}
