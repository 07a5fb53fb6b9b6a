import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

/// The response header lines libcurl hands the updater's transport (``ResponseHeaderLines``),
/// from any server.
///
/// Input: raw header lines, one per `\n` (status lines of redirects included).
/// - Every field has a non-empty name without a colon or whitespace, and a value with no
///   whitespace at its ends; a status line forgets every field before it.
/// - `Content-Length` is declared only as digits, never negative; the dictionary holds exactly
///   the names of the fields, each value the fields' values of that name joined with ", ".
enum ResponseHeaderChecks {
    static func check(_ bytes: [UInt8]) throws {
        var head = ResponseHeaderLines()
        var sinceStatus = 0
        for line in text(bytes).split(separator: "\n", omittingEmptySubsequences: false) {
            head.add(String(line))
            if line.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("HTTP/") {
                try require(head.fields.isEmpty, "a status line left \(head.fields.count) fields")
                sinceStatus = 0
            } else {
                sinceStatus += 1
            }
        }
        try require(head.fields.count <= sinceStatus, "more fields than lines since the status line")
        for (name, value) in head.fields {
            try require(!name.isEmpty && !name.contains(":") && !name.contains(where: \.isWhitespace), "a field named \(name.debugDescription)")
            try require(value == value.trimmingCharacters(in: .whitespaces), "an untrimmed value \(value.debugDescription)")
        }
        if let length = head.contentLength { try require(length >= 0, "a negative Content-Length \(length)") }
        let dictionary = head.dictionary
        try require(Set(dictionary.keys) == Set(head.fields.map(\.name)), "the dictionary's names are not the fields'")
        for (name, joined) in dictionary {
            try require(joined == head.fields.filter { $0.name == name }.map(\.value).joined(separator: ", "), "\(name) joined wrongly")
        }
    }
}
