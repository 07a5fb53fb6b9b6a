import Foundation
import HybridCore

/// One row of the tour: a feature, whether it worked, and what it measured.
struct DemoResult: Codable, Sendable {
    /// The page's name (`pages/FEATURE.html`) and the report's key.
    var feature: String
    var title: String
    var ok: Bool
    var figure: String
    /// Numbers and values behind the figure (from the page and from native).
    var details: JSONValue?
}

/// The table `hybrid demo` prints and the `report.json` it writes.
struct DemoReport {
    var results: [DemoResult]
    var seconds: Double
    var summary: String
    var screenshot: String?

    var ok: Bool { !results.isEmpty && results.allSatisfy(\.ok) }

    /// Feature, result, figure: one line each.
    var table: String {
        let width = max(28, (results.map(\.title.count).max() ?? 0) + 2)
        func row(_ a: String, _ b: String, _ c: String) -> String {
            a.padding(toLength: width, withPad: " ", startingAt: 0) + b.padding(toLength: 8, withPad: " ", startingAt: 0) + c
        }
        var lines = [row("FEATURE", "RESULT", "FIGURE")]
        for result in results { lines.append(row(result.title, result.ok ? "ok" : "FAILED", result.figure)) }
        return lines.joined(separator: "\n")
    }

    var json: JSONValue {
        let features: [JSONValue] = results.map { result in
            var object: [String: JSONValue] = [
                "feature": .string(result.feature), "title": .string(result.title), "ok": .bool(result.ok),
                "figure": .string(result.figure),
            ]
            if let details = result.details { object["figures"] = details }
            return .object(object)
        }
        return [
            "ok": .bool(ok), "summary": .string(summary), "seconds": .number((seconds * 10).rounded() / 10),
            "passed": .number(Double(results.filter(\.ok).count)), "total": .number(Double(results.count)),
            "features": .array(features), "screenshot": screenshot.map { .string($0) } ?? .null,
        ]
    }

    func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(json.jsonText.utf8).write(to: directory.appendingPathComponent("report.json"))
    }
}

/// A tour step that could not run, with a message for the reader.
struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
