import Foundation
import HybridCore
#if os(Linux)
import HybridGTK
#endif

/// `hybrid demo`: the guided tour behind `make demo`: runs the demo app in the container
/// (headless when there is no display), prints a feature table, writes a report and a screenshot.
enum DemoCommand: HybridCommand {
    static let name = "demo"
    static let summary = "Run the demo tour (Examples/demo) and write demo-out/report.json and screenshot.png"
    static let usage = """
        USAGE: hybrid demo [DIR] [--out DIR] [--timeout SECONDS] [--headless]

        Opens the demo app (default Examples/demo) in the container, lets it walk its tour, and
        prints one row per feature: feature, result, figure. Writes OUT/report.json (one entry per
        feature with ok and figure) and OUT/screenshot.png (default OUT: demo-out).
        Exits 1 when any feature fails, 2 on timeout or crash.
        """

    static func run(_ arguments: Arguments) throws -> Int32 {
        var arguments = arguments
        let out = URL(fileURLWithPath: try arguments.option("--out") ?? "demo-out", isDirectory: true)
        let timeout = try arguments.double("--timeout") ?? 90
        let headless = arguments.flag("--headless")
        let directory = try arguments.finish(maxPositionals: 1).first ?? "Examples/demo"
        #if os(Linux)
        var options = RunOptions(target: directory)
        options.until = .done
        options.timeout = timeout
        options.screenshot = out.appendingPathComponent("screenshot.png")
        var display: HeadlessDisplay?
        if headless || ProcessInfo.processInfo.environment["DISPLAY"].map({ $0.isEmpty }) ?? true {
            display = try HeadlessDisplay()
            display?.export()
        }
        options.windowed = display == nil
        defer { display?.stop() }
        let runOptions = options
        let started = Date()
        let outcome = try GLibMainLoop.run { try await RunSession(options: runOptions).run() }
        let features = outcome.details?["features"]?.arrayValue ?? []
        print("HybridKit demo — \(features.count) features, \(String(format: "%.1f", Date().timeIntervalSince(started))) s\n")
        print(row("FEATURE", "RESULT", "FIGURE"))
        for feature in features {
            print(row(feature["feature"]?.stringValue ?? "?", feature["ok"]?.boolValue == true ? "ok" : "FAILED", feature["figure"]?.stringValue ?? ""))
        }
        let report: JSONValue = [
            "ok": .bool(outcome.exitCode == 0), "summary": .string(outcome.summary), "features": .array(features),
            "url": outcome.url.map { .string($0) } ?? .null, "screenshot": .string(options.screenshot?.path ?? ""),
        ]
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data(report.jsonText.utf8).write(to: out.appendingPathComponent("report.json"))
        print("\n\(outcome.exitCode == 0 ? "All features ok" : "NOT OK: \(outcome.summary)"). Wrote \(out.path)/report.json and screenshot.png")
        return outcome.exitCode
        #else
        FileHandle.standardError.write(Data("hybrid demo: needs the WebKitGTK engine (Linux)\n".utf8))
        return 1
        #endif
    }

    private static func row(_ a: String, _ b: String, _ c: String) -> String {
        a.padding(toLength: 34, withPad: " ", startingAt: 0) + b.padding(toLength: 8, withPad: " ", startingAt: 0) + c
    }
}
