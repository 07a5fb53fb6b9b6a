import Foundation
import HybridBlink
import HybridCore
import HybridGTK
import Testing

/// docs/engines.md's capability table is the engines' declared capability sets, rendered: this
/// suite renders them and compares (on a mismatch it prints the table to paste).
@Suite("Engine capability table")
@MainActor
struct CapabilityTableTests {
    static let begin = "<!-- capability-table:begin (generated: CapabilityTableTests) -->"
    static let end = "<!-- capability-table:end -->"

    /// The table: one row per capability, one column per engine, a lacking capability with its reason.
    static func table() -> String {
        let engines: [(name: String, has: EngineCapabilities, why: [EngineCapabilities: String])] = [
            ("WebKitGTK (`webkit`)", GTKWebEngine.webKitCapabilities, GTKWebEngine.webKitLimitations),
            ("Blink (`blink`)", BlinkWebEngine.blinkCapabilities, BlinkWebEngine.blinkLimitations),
        ]
        var lines = ["| Capability | " + engines.map(\.name).joined(separator: " | ") + " |",
                     "|---" + String(repeating: "|---", count: engines.count) + "|"]
        for (name, capability) in EngineCapabilities.named {
            let cells = engines.map { engine in
                engine.has.contains(capability) ? "yes" : "no: " + (engine.why[capability] ?? "(no reason declared)")
            }
            lines.append("| `\(name)` | " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    @Test func everyLackingCapabilityHasADeclaredReason() throws {
        for (engine, has, why) in [("webkit", GTKWebEngine.webKitCapabilities, GTKWebEngine.webKitLimitations),
                                   ("blink", BlinkWebEngine.blinkCapabilities, BlinkWebEngine.blinkLimitations)] {
            for (name, capability) in EngineCapabilities.named where !has.contains(capability) {
                #expect(why[capability]?.isEmpty == false, "\(engine) lacks \(name) without saying why")
            }
            for capability in why.keys {
                #expect(!has.contains(capability), "\(engine) gives a reason for lacking \(capability.names), which it has")
            }
        }
    }

    @Test func docsShowTheDeclaredCapabilities() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/engines.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let start = try #require(text.range(of: Self.begin), "docs/engines.md has no \(Self.begin) marker")
        let stop = try #require(text.range(of: Self.end, range: start.upperBound..<text.endIndex))
        let documented = text[start.upperBound..<stop.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        let expected = Self.table()
        #expect(documented == expected, "docs/engines.md's capability table is stale; replace it with:\n\(expected)")
    }
}
