import Foundation
import HybridCore
import HybridCrypto
import Testing

/// A receiver that decodes with the official `opentelemetry-proto` package (scripts/otlp-receiver.sh).
final class OTLPReceiver: @unchecked Sendable {
    let process = Process()
    let output: URL
    let port: Int

    init(output: URL) throws {
        self.output = output
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/otlp-receiver.sh")
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path, output.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try pipe.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line += byte }
        port = try #require(Int(String(decoding: line, as: UTF8.self)), "the receiver did not start")
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }

    var endpoint: URL { URL(string: "http://127.0.0.1:\(port)/v1/logs")! }

    /// Makes /v1/logs answer `status` (503: down) until set back to 200.
    func answer(_ status: Int) async throws {
        let control = URL(string: "http://127.0.0.1:\(port)/control")!
        #expect(try await URLSessionOTLPTransport().post(Data(String(status).utf8), headers: [:], to: control) == 200)
    }

    /// Every record the receiver decoded, as JSON objects.
    var records: [[String: Any]] { Self.lines(output.path) }

    /// Every metric data point the receiver decoded, as JSON objects.
    var metricPoints: [[String: Any]] { Self.lines(output.path + ".metrics") }

    private static func lines(_ path: String) -> [[String: Any]] {
        let data = FileManager.default.contents(atPath: path) ?? Data()
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }
}

@Suite(.serialized) struct OTLPExporterTests {
    func directory() -> URL { FileManager.default.temporaryDirectory.appendingPathComponent("hk-otlp-\(UUID().uuidString)") }

    func options(_ receiver: OTLPReceiver, spool: URL, batchSize: Int, maxSpoolBytes: Int = 4 << 20) -> OTLPExporter.Options {
        OTLPExporter.Options(endpoint: receiver.endpoint, serviceName: "Shop", serviceVersion: "3.1", spoolDirectory: spool,
                             maxSpoolBytes: maxSpoolBytes, batchSize: batchSize, flushInterval: 0.2, initialBackoff: 0.05,
                             maxBackoff: 0.3, gzip: ZlibCompressor.gzip)
    }

    func launch(_ index: Int) -> HealthEvent {
        HealthEvent(.launch(source: .pooledPackage), context: HealthContext(packageID: "shop", packageVersion: 8, engine: "webkitgtk",
                                                                            launchID: "launch-\(index)"))
    }

    @Test func payloadsDecodeWithTheOfficialPackage() async throws {
        let root = directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let receiver = try OTLPReceiver(output: root.appendingPathComponent("received.jsonl"))
        let exporter = OTLPExporter(options: options(receiver, spool: root.appendingPathComponent("spool"), batchSize: 50))
        let context = HealthContext(packageID: "shop", packageVersion: 8, engine: "blink", rolloutBucket: 4.25, url: "app://m.example.com/shop/",
                                    launchID: "l1")
        exporter.record(HealthEvent(.pageTiming(PageTiming(firstContentfulPaint: 123.5)), context: context))
        exporter.record(HealthEvent(.scriptError(ScriptErrorReport(type: "TypeError", message: "x is undefined", source: "app://m.example.com/shop/app.js",
                                                                   line: 42, column: 7, stack: "at f", origin: "app://m.example.com")), context: context))
        exporter.record(HealthEvent(.update(way: "patch", bytes: 5846, milliseconds: 31), context: context))
        for index in 0..<117 { exporter.record(launch(index)) }
        #expect(await exporter.flush())

        let records = receiver.records
        #expect(records.count == 120)
        #expect(records.allSatisfy { $0["gzip"] as? Bool == true })
        let paint = try #require(records.first { $0["event_name"] as? String == "hybridkit.page.timing" })
        let attributes = try #require(paint["attributes"] as? [String: Any])
        #expect(attributes["hybridkit.timing.first_contentful_paint_ms"] as? Double == 123.5)
        #expect(attributes["hybridkit.package.version"] as? Int == 8)
        #expect(attributes["hybridkit.rollout.bucket"] as? Double == 4.25)
        #expect(attributes["event.name"] as? String == "hybridkit.page.timing")
        #expect((paint["resource"] as? [String: Any])?["service.name"] as? String == "Shop")
        #expect(paint["scope"] as? String == "hybridkit")
        let nanos = try #require(paint["time_unix_nano"] as? Int)
        #expect(abs(Double(nanos) / 1e9 - Date().timeIntervalSince1970) < 60)
        let error = try #require(records.first { $0["event_name"] as? String == "hybridkit.script.error" })
        let errorAttributes = try #require(error["attributes"] as? [String: Any])
        #expect(error["severity_text"] as? String == "ERROR" && error["severity_number"] as? Int == 17)
        #expect(errorAttributes["exception.message"] as? String == "x is undefined")
        #expect(errorAttributes["code.line.number"] as? Int == 42 && errorAttributes["code.column.number"] as? Int == 7)
        #expect(exporter.statistics.sent == 120 && exporter.statistics.dropped == 0)

        // The metrics of the same events, decoded by the official package: counts per event and
        // release add up over the windows; the histograms hold the one FCP and update time.
        let points = receiver.metricPoints
        #expect(exporter.statistics.metricWindowsSent >= 1 && exporter.statistics.spooledMetricWindows == 0)
        #expect(!points.isEmpty && points.allSatisfy { $0["gzip"] as? Bool == true && $0["temporality"] as? Int == 1 })
        #expect(points.allSatisfy { ($0["resource"] as? [String: Any])?["service.version"] as? String == "3.1" })
        func count(_ name: String, engine: String) -> Int {
            points.filter { point in
                let attributes = point["attributes"] as? [String: Any] ?? [:]
                return point["name"] as? String == "hybridkit.events" && attributes["event.name"] as? String == name
                    && attributes["hybridkit.engine"] as? String == engine && attributes["hybridkit.package.version"] as? Int == 8
            }.compactMap { $0["value"] as? Int }.reduce(0, +)
        }
        #expect(count("hybridkit.page.launch", engine: "webkitgtk") == 117)
        #expect(count("hybridkit.page.timing", engine: "blink") == 1 && count("hybridkit.script.error", engine: "blink") == 1)
        #expect(points.first { $0["name"] as? String == "hybridkit.events" }?["monotonic"] as? Bool == true)
        let fcp = try #require(points.first { $0["name"] as? String == "hybridkit.page.first_contentful_paint" })
        #expect(fcp["kind"] as? String == "histogram" && fcp["unit"] as? String == "ms")
        #expect(fcp["count"] as? Int == 1 && fcp["sum"] as? Double == 123.5 && fcp["min"] as? Double == 123.5)
        #expect(fcp["explicit_bounds"] as? [Double] == [50, 100, 250, 500, 1000, 2500, 5000, 10000])
        #expect(fcp["bucket_counts"] as? [Int] == [0, 0, 1, 0, 0, 0, 0, 0, 0], "123.5 ms is in (100, 250]")
        let update = try #require(points.first { $0["name"] as? String == "hybridkit.package.update.duration" })
        #expect(update["count"] as? Int == 1 && update["sum"] as? Double == 31)
        #expect(!points.contains { $0["name"] as? String == "hybridkit.page.ready_time" }, "no ready event, no ready histogram")
    }

    @Test func anOfflinePeriodIsSpooledWithinItsBoundAndDeliveredOnce() async throws {
        let root = directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let receiver = try OTLPReceiver(output: root.appendingPathComponent("received.jsonl"))
        try await receiver.answer(503)
        let bound = 1 << 20
        let exporter = OTLPExporter(options: options(receiver, spool: root.appendingPathComponent("spool"), batchSize: 500, maxSpoolBytes: bound))
        for index in 0..<10_000 { exporter.record(launch(index)) }
        // Offline: every batch spooled, retried with backoff, nothing dropped, within the bound.
        #expect(await exporter.flush(timeout: 1) == false)
        let deadline = Date().addingTimeInterval(30)
        while exporter.statistics.spooledBatches < 20, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        let offline = exporter.statistics
        #expect(offline.spooledBatches == 20 && offline.dropped == 0 && offline.failedAttempts > 0, "\(offline)")
        #expect(offline.peakSpooledBytes <= bound, "\(offline)")
        #expect(receiver.records.isEmpty)

        try await receiver.answer(200)
        #expect(await exporter.flush(timeout: 30))
        let launches = receiver.records.compactMap { ($0["attributes"] as? [String: Any])?["hybridkit.launch.id"] as? String }
        #expect(launches.count == 10_000 && Set(launches).count == 10_000, "\(launches.count) delivered, \(Set(launches).count) distinct")
        #expect(exporter.statistics.sent == 10_000 && exporter.statistics.spooledBatches == 0)
    }

    @Test func aFullSpoolDropsTheOldestAndReportsTheCount() async throws {
        let root = directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let receiver = try OTLPReceiver(output: root.appendingPathComponent("received.jsonl"))
        try await receiver.answer(503)
        let bound = 16 << 10
        let exporter = OTLPExporter(options: options(receiver, spool: root.appendingPathComponent("spool"), batchSize: 200, maxSpoolBytes: bound))
        for index in 0..<4_000 { exporter.record(launch(index)) }
        #expect(await exporter.flush(timeout: 1) == false)
        let offline = exporter.statistics
        #expect(offline.dropped > 0 && offline.peakSpooledBytes <= bound, "\(offline)")

        try await receiver.answer(200)
        exporter.record(launch(4_000))   // the next batch carries the count
        #expect(await exporter.flush(timeout: 30))
        let records = receiver.records
        let reported = records.filter { $0["event_name"] as? String == "hybridkit.health.dropped" }
            .compactMap { ($0["attributes"] as? [String: Any])?["hybridkit.dropped.count"] as? Int }.reduce(0, +)
        let launches = records.filter { $0["event_name"] as? String == "hybridkit.page.launch" }.count
        #expect(reported == exporter.statistics.dropped, "reported \(reported), dropped \(exporter.statistics.dropped)")
        #expect(launches + exporter.statistics.dropped == 4_001)
    }
}
