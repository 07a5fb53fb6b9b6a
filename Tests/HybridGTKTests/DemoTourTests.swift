import Foundation
import HybridCore
import Testing

/// `make demo` end to end: `hybrid demo` publishes the demo app (key, pack, serve, update), walks
/// its tour in the container, and reports. A broken page must turn the run red.
@Suite("hybrid demo tour", .serialized)
struct DemoTourTests {
    /// `Examples/demo` of this checkout.
    static let demoApp = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/demo", isDirectory: true)

    static let features = ["bridge", "events", "device-storage", "cookies", "upload", "interception", "payment", "recovery",
                           "pool", "prerender", "progress", "dialogs", "back", "snapshot", "update"]

    static func demo(_ app: URL, out: URL) throws -> RunCommandTests.Run {
        try RunCommandTests.hybrid(["demo", app.path, "--out", out.path, "--headless", "--timeout", "120"])
    }

    static func report(_ out: URL) throws -> JSONValue {
        try JSONValue(jsonText: String(decoding: Data(contentsOf: out.appendingPathComponent("report.json")), as: UTF8.self))
    }

    @Test func theTourPassesEveryFeatureAndWritesItsReportAndScreenshot() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("hk-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try Self.demo(Self.demoApp, out: out)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("All features ok"))
        let report = try Self.report(out)
        let features = report["features"]?.arrayValue ?? []
        #expect(features.compactMap { $0["feature"]?.stringValue } == Self.features)
        for feature in features {
            #expect(feature["ok"] == true, "\(feature.jsonText)")
            #expect((feature["figure"]?.stringValue ?? "").isEmpty == false)
            #expect(run.output.contains(feature["title"]?.stringValue ?? "?"))
        }
        // The update was incremental: one changed file fetched, the rest reused, v2 active.
        let update = features.first { $0["feature"] == "update" }?["figures"]
        #expect(update?["v2BlobsFetched"] == 1)
        #expect(update?["activeVersion"] == 2)
        #expect((update?["v2BlobsReused"]?.numberValue ?? 0) > 10)
        // The home page's screenshot (the viewport), and the canvas snapshot (the canvas's size).
        let shot = try Data(contentsOf: out.appendingPathComponent("screenshot.png"))
        #expect(shot.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(shot[16..<24].elementsEqual([0, 0, 4, 0, 0, 0, 3, 0]))  // 1024 × 768
        let canvas = try Data(contentsOf: out.appendingPathComponent("canvas-snapshot.png"))
        #expect(canvas[16..<24].elementsEqual([0, 0, 1, 64, 0, 0, 0, 160]))  // 320 × 160
    }

    @Test func aFeatureThatFailsMakesTheRunFailAndSaysWhich() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("hk-demo-broken-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let app = work.appendingPathComponent("app", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.demoApp, to: app)
        // The dialog page now expects an answer the app's delegate does not give.
        let page = app.appendingPathComponent("pages/dialogs.html")
        let text = try String(contentsOf: page, encoding: .utf8)
        try Data(text.replacingOccurrences(of: "name === 'HybridKit'", with: "name === 'someone else'").utf8).write(to: page)
        let out = work.appendingPathComponent("out")
        let run = try Self.demo(app, out: out)
        #expect(run.status == 1)
        #expect(run.output.contains("NOT OK: 14 of 15 features ok"))
        let features = try Self.report(out)["features"]?.arrayValue ?? []
        #expect(features.filter { $0["ok"] == false }.compactMap { $0["feature"]?.stringValue } == ["dialogs"])
        #expect(try Self.report(out)["ok"] == false)
    }
}
