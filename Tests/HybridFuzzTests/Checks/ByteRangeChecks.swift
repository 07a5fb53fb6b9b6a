import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

/// `Range` headers (RFC 9110 §14) and media types.
///
/// Input: two bytes of representation length, then the header. Properties:
/// - A partial range is non-empty and inside the representation.
/// - The answer is the one a direct reading of §14 gives (a small reference model below):
///   `first-last`, `first-` and `-suffix` in ASCII digits, one range, case-insensitive unit.
/// - Media types: the type for any path has the `type/subtype` shape; whatever
///   `isUTF8Text` accepts names a textual type.
enum ByteRangeChecks {
    static func check(_ bytes: [UInt8]) throws {
        guard bytes.count >= 2 else { return }
        let length = Int(bytes[0]) << 8 | Int(bytes[1])
        let header = text(Array(bytes.dropFirst(2)))
        let range = ByteRange(header: header, length: length)
        if case .partial(let r) = range {
            try require(r.lowerBound >= 0 && r.lowerBound < r.upperBound && r.upperBound <= length,
                        "range \(r) for \(length) bytes from \(header.debugDescription.prefix(100))")
        }
        let expected = model(header, length: length)
        try require(range == expected, "\(header.debugDescription.prefix(100)) for \(length) bytes gives \(range), §14 says \(expected)")
        try mediaTypes(header)
    }

    /// RFC 9110 §14 as this server documents it, written independently of ``ByteRange``.
    static func model(_ header: String, length: Int) -> ByteRange {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return .whole }
        guard let equals = trimmed.firstIndex(of: "=") else { return .unsatisfiable }
        guard trimmed[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "bytes" else { return .whole }
        let specs = trimmed[trimmed.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        func digits(_ s: Substring) -> Int?? {   // nil: not digits; .some(nil): empty
            if s.isEmpty { return .some(nil) }
            guard s.count <= 18, s.unicodeScalars.allSatisfy({ (0x30...0x39).contains($0.value) }) else { return nil }
            return .some(Int(s))
        }
        func parse(_ spec: String) -> (Int?, Int?)? {
            guard let dash = spec.firstIndex(of: "-") else { return nil }
            guard let first = digits(spec[..<dash]), let last = digits(spec[spec.index(after: dash)...]) else { return nil }
            if first == nil && last == nil { return nil }
            return (first, last)
        }
        guard specs.count == 1 else { return specs.allSatisfy { parse($0) != nil } ? .whole : .unsatisfiable }
        guard let (first, last) = parse(specs[0]) else { return .unsatisfiable }
        guard let first else {
            guard let count = last, count > 0, length > 0 else { return .unsatisfiable }
            return .partial(max(0, length - count)..<length)
        }
        guard first < length else { return .unsatisfiable }
        guard let last else { return .partial(first..<length) }
        guard last >= first else { return .unsatisfiable }
        return .partial(first..<min(last + 1, length))
    }

    static func mediaTypes(_ text: String) throws {
        let type = MediaTypes.type(forPath: text)
        try require(type.split(separator: "/").count == 2, "type '\(type)' for path \(text.debugDescription.prefix(100))")
        _ = PackageMediaTypes.isCompressible(text)
        _ = PackageMediaTypes.isDocument(text)
        if ProxyHeaders.isUTF8Text(text) {
            let essence = text.lowercased().split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            let textual = essence.hasPrefix("text/") || ["json", "xml", "javascript"].contains { essence.hasSuffix("/" + $0) || essence.hasSuffix("+" + $0) }
                || essence == "application/x-www-form-urlencoded"
            try require(textual, "isUTF8Text accepts \(text.debugDescription.prefix(100))")
        }
    }
}
