import Foundation

/// A parsed HTTP `Range` header (RFC 9110 §14), for serving package files.
///
/// One range is honoured (`bytes=a-b`, `bytes=a-`, `bytes=-n`); a multi-range request is
/// answered with the whole file, which RFC 9110 allows, since media players ask for one range.
enum ByteRangeRequest: Equatable {
    /// Serve the whole file (no usable Range, or several ranges).
    case whole
    /// Serve these bytes with 206.
    case range(Range<Int>)
    /// 416: the range starts past the end.
    case unsatisfiable

    static func parse(_ header: String, size: Int) -> ByteRangeRequest {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst("bytes=".count)
        guard !spec.contains(",") else { return .whole }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { return .whole }
        let digits = { (text: String) -> Bool in !text.isEmpty && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && text.count <= 18 }
        if parts[0].isEmpty {
            // Suffix range: the last n bytes.
            guard digits(parts[1]), let count = Int(parts[1]) else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .range(max(0, size - count)..<size)
        }
        guard digits(parts[0]), let start = Int(parts[0]) else { return .whole }
        guard start < size else { return .unsatisfiable }
        if parts[1].isEmpty { return .range(start..<size) }
        guard digits(parts[1]), let end = Int(parts[1]) else { return .whole }
        guard end >= start else { return .whole }   // invalid: ignore the header
        return .range(start..<(min(end, size - 1) + 1))
    }
}
