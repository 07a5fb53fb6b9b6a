import Foundation

/// A `Range` request header judged against a representation of `length` bytes (RFC 9110 §14):
/// the one parser behind `hybrid serve` (``StaticFiles``) and the offline-package handler.
///
/// - Another range unit is ignored (the whole representation), as §14.2 requires.
/// - Several ranges are ignored (§14.2 allows it): media players ask for one.
/// - An invalid range — not `first-last`, `first-` or `-suffix` in digits, or `last < first`
///   (§14.1.1) — is rejected with 416, one of the two answers §14.2 allows and the one nginx
///   gives; so is a range that starts past the end or a zero-length suffix (unsatisfiable).
public enum ByteRange: Equatable, Sendable {
    /// No usable range: serve the whole representation with 200 (absent header, another unit,
    /// or several ranges — which this server does not answer with multipart/byteranges).
    case whole
    /// One satisfiable range: answer 206 with these bytes.
    case partial(Range<Int>)
    /// A malformed or unsatisfiable byte range: answer 416 with `Content-Range: bytes */length`.
    case unsatisfiable

    /// Parses `header` for a representation of `length` bytes.
    public init(header: String?, length: Int) {
        guard let header = header?.trimmingCharacters(in: .whitespaces), !header.isEmpty else {
            self = .whole
            return
        }
        guard let equals = header.firstIndex(of: "=") else {
            self = .unsatisfiable
            return
        }
        guard header[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "bytes" else {
            self = .whole // another range unit: ignored, as RFC 9110 §14.2 requires
            return
        }
        let specs = header[header.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard specs.count == 1, let spec = specs.first else {
            self = specs.allSatisfy(Self.isWellFormed) ? .whole : .unsatisfiable
            return
        }
        self = Self.judge(spec, length: length)
    }

    private static func judge(_ spec: String, length: Int) -> ByteRange {
        guard isWellFormed(spec), let dash = spec.firstIndex(of: "-") else { return .unsatisfiable }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            // Suffix range: the last N bytes.
            guard let count = Int(last), count > 0, length > 0 else { return .unsatisfiable }
            return .partial(max(0, length - count)..<length)
        }
        guard let start = Int(first), start < length else { return .unsatisfiable }
        guard !last.isEmpty else { return .partial(start..<length) }
        guard let end = Int(last), end >= start else { return .unsatisfiable }
        return .partial(start..<min(end + 1, length))
    }

    /// `first-last`, `first-` or `-suffix`, digits only.
    private static func isWellFormed(_ spec: String) -> Bool {
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !(parts[0].isEmpty && parts[1].isEmpty) else { return false }
        let digits = { (part: Substring) in part.count <= 18 && part.allSatisfy { $0.isASCII && $0.isNumber } }
        return digits(parts[0]) && digits(parts[1])
    }
}
