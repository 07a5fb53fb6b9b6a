import Foundation
import HybridCore
import HybridFixtures
import Testing

/// `hybrid health FILE.jsonl`: the per-release table from a log an app wrote with the library.
@Suite("hybrid health")
struct HealthCommandTests {
    @Test func theTableAndJSONSummariseALogPerRelease() async throws {
        let tool = try HybridTool.built()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-health-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = HealthLogFile(url: directory.appendingPathComponent("health.jsonl"), serviceName: "Shop", serviceVersion: "1")
        for index in 0..<4 {
            let context = HealthContext(packageID: "shop", packageVersion: 2, engine: "webkit", launchID: "l\(index)")
            log.record(HealthEvent(.launch(source: .pooledPackage), context: context))
            log.record(HealthEvent(.pageTiming(PageTiming(firstContentfulPaint: Double(index + 1) * 100)), context: context))
            if index > 0 { log.record(HealthEvent(.ready(milliseconds: 10), context: context)) }
        }
        let table = try await offPool { try tool.run(["health", log.url.path]) }
        #expect(table.status == 0, "\(table.output)")
        #expect(table.output.contains("shop@2") && table.output.contains("75.0%"), "\(table.output)")
        #expect(table.output.contains("11 event(s) from 1 file(s)"), "\(table.output)")
        let json = try await offPool { try tool.run(["health", log.url.path, "--json"]) }
        let line = try #require(json.output.split(separator: "\n").first { $0.hasPrefix("{") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["release"] as? String == "shop@2")
        #expect(object["launches"] as? Double == 4)
        #expect(object["ready_rate"] as? Double == 0.75)
        #expect(object["fcp_p50_ms"] as? Double == 200)
        // A file that is not there is a clear failure, not an empty table.
        let missing = try await offPool { try tool.run(["health", directory.appendingPathComponent("nope.jsonl").path]) }
        #expect(missing.status == 1 && missing.output.contains("cannot read"), "\(missing.output)")
    }

    @Test func aFileWithNoValidEventFailsAndOneWithSomeBadLinesCountsThem() async throws {
        let tool = try HybridTool.built()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-health-corrupt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let corrupt = directory.appendingPathComponent("corrupt.jsonl")
        let garbage = (0..<9).map { "{not json \($0)" }.joined(separator: "\n") + "\n"
        try Data(garbage.utf8).write(to: corrupt)
        let failed = try await offPool { try tool.run(["health", corrupt.path]) }
        #expect(failed.status == 1, "\(failed.output)")
        #expect(failed.output.contains("no valid health event") && failed.output.contains("9 line(s) skipped"), "\(failed.output)")
        // Some bad lines beside good events are still skipped and counted, and the table printed.
        let log = HealthLogFile(url: directory.appendingPathComponent("mixed.jsonl"), serviceName: "Shop", serviceVersion: "1")
        let context = HealthContext(packageID: "shop", packageVersion: 2, engine: "webkit", launchID: "l0")
        log.record(HealthEvent(.launch(source: .pooledPackage), context: context))
        let handle = try FileHandle(forWritingTo: log.url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{broken\n".utf8))
        try handle.close()
        let mixed = try await offPool { try tool.run(["health", log.url.path]) }
        #expect(mixed.status == 0 && mixed.output.contains("1 line(s) skipped"), "\(mixed.output)")
    }
}
