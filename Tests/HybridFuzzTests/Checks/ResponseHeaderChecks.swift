import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

/// The response header lines libcurl hands the updater's and the request proxy's transports (``ResponseHeaderLines``),
/// from any server.
///
/// Input: raw header lines, one per `\n` (status lines of redirects included).
/// - Every field has a non-empty name without a colon or whitespace, and a value with no
///   whitespace at its ends; a status line forgets every field before it.
/// - `Content-Length` is declared only as digits, never negative; the dictionary holds exactly
///   the names of the fields, each value the fields' values of that name joined with ", ".
/// - The request proxy's pairs (``ProxyHeaders/pairs(_:)``) name each field once, lower-cased and
///   sorted, with every spelling's values joined in arrival order, and never `Set-Cookie`.
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
        // The request proxy's view of the same lines (ProxyHeaders.pairs): one pair per name
        // lower-cased, sorted, every spelling's values in arrival order, Set-Cookie never shown.
        let pairs = ProxyHeaders.pairs(HTTPHead(status: 200, url: URL(string: "http://a.test/")!, fields: head.fields))
        let names = pairs.map { $0[0] }
        try require(names == Array(Set(names)).sorted(), "the page's names are not unique and sorted: \(names)")
        for pair in pairs {
            try require(pair.count == 2 && pair[0] == pair[0].lowercased() && !ProxyHeaders.hidden.contains(pair[0]), "a pair \(pair)")
            let values = head.fields.filter { $0.name.lowercased() == pair[0] }.map(\.value)
            try require(pair[1] == values.joined(separator: ", "), "\(pair[0]) combined wrongly")
        }
        try require(Set(names) == Set(head.fields.map { $0.name.lowercased() }).subtracting(ProxyHeaders.hidden), "a name lost or added")
    }
}
