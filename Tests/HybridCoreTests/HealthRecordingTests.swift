import Foundation
import HybridCore
import Testing

/// Health recording without an engine: privacy, sampling and flood limits in the recorder, the
/// OpenTelemetry JSON-lines file (shape, round trip, rotation), and the per-release summary.
@Suite("Health recording")
struct HealthRecordingTests {
    /// A sink that keeps what it is given.
    final class Collected: HealthSink, @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [HealthEvent] = []
        var events: [HealthEvent] { lock.withLock { stored } }
        func record(_ event: HealthEvent) { lock.withLock { stored.append(event) } }
    }

    static func context(_ launch: String?, release: (String, Int)? = ("shop", 7), url: String? = "https://m.example.com/shop/") -> HealthContext {
        HealthContext(packageID: release?.0, packageVersion: release?.1, engine: "webkit", configRule: "shop-canary",
                      rolloutBucket: 12.5, url: url, launchID: launch)
    }

    @Test func urlsLoseQueryAndFragmentUnlessTheAppKeepsThem() {
        let sink = Collected()
        let recorder = HealthRecorder(sinks: [sink])
        let context = Self.context("l1", url: "https://m.example.com/shop/?token=secret#cart")
        recorder.record(HealthEvent(.launch(source: .network), context: context))
        recorder.record(HealthEvent(.scriptError(ScriptErrorReport(message: "boom", source: "https://m.example.com/app.js?v=1&sid=s#x",
                                                                   line: 3, column: 9)), context: context))
        #expect(sink.events.map(\.context.url) == ["https://m.example.com/shop/", "https://m.example.com/shop/"])
        guard case .scriptError(let report) = sink.events.last?.kind else { Issue.record("no error recorded"); return }
        #expect(report.source == "https://m.example.com/app.js")

        let keeping = Collected()
        HealthRecorder(options: .init(keepsQueryStrings: true), sinks: [keeping]).record(HealthEvent(.launch(source: .network), context: context))
        #expect(keeping.events.first?.context.url == "https://m.example.com/shop/?token=secret#cart")
    }

    /// A frame of another origin threw: the page itself sees `Script error.`, and so does the
    /// record, unless the app listed that origin. The page's own errors stay whole.
    @Test func aForeignFramesErrorIsRecordedAsTheEngineShowsItToThePage() {
        let secret = "Error: lookup failed user=alice@example.com"
        func errors(_ options: HealthRecorder.Options) -> [ScriptErrorReport] {
            let sink = Collected()
            let recorder = HealthRecorder(options: options, sinks: [sink])
            let context = Self.context("frames", url: "http://localhost:8080/index.html")
            recorder.record(HealthEvent(.launch(source: .network), context: context))
            recorder.record(HealthEvent(.scriptError(ScriptErrorReport(message: secret, source: "http://127.0.0.1:8080/frame.js",
                                                                       line: 4, column: 2, stack: "at lookup (frame.js:4:2)",
                                                                       origin: "http://127.0.0.1:8080")), context: context))
            recorder.record(HealthEvent(.scriptError(ScriptErrorReport(message: "own", source: "http://localhost:8080/app.js",
                                                                       line: 1, stack: "at main", origin: "http://localhost:8080")),
                                        context: context))
            recorder.record(HealthEvent(.scriptError(ScriptErrorReport(message: "opaque \(secret)", origin: "null")), context: context))
            return sink.events.compactMap { if case .scriptError(let report) = $0.kind { report } else { nil } }
        }
        let redacted = errors(.init())
        #expect(redacted.count == 3, "\(redacted)")
        let foreign = redacted.first { $0.origin == "http://127.0.0.1:8080" }
        #expect(foreign == ScriptErrorReport(message: "Script error.", origin: "http://127.0.0.1:8080"))
        #expect(!redacted.contains { $0.message.contains("alice") || ($0.stack ?? "").contains("lookup") })
        #expect(redacted.contains { $0.message == "own" && $0.stack == "at main" && $0.line == 1 })

        let listed = errors(.init(fullErrorOrigins: ["http://127.0.0.1:8080"]))
        #expect(listed.contains { $0.message == secret && $0.line == 4 && $0.stack == "at lookup (frame.js:4:2)" })
        #expect(listed.contains { $0.message == "Script error." && $0.origin == "null" }, "an opaque frame is never listed")
    }

    /// A page in an error loop: 100,000 copies of one error and 100,000 distinct ones. The sink
    /// sees at most the cap, the rest is one counted `dropped` event when the launch ends.
    @Test func anErrorLoopCannotFloodTheSinkAndWhatIsLeftOutIsCounted() {
        let sink = Collected()
        let recorder = HealthRecorder(options: .init(maxScriptErrorsPerLaunch: 25), sinks: [sink])
        let context = Self.context("loop")
        recorder.record(HealthEvent(.launch(source: .pooledPackage), context: context))
        for _ in 0..<100_000 {
            recorder.record(HealthEvent(.scriptError(ScriptErrorReport(message: "same", source: "a.js", line: 1, column: 1)), context: context))
        }
        for index in 0..<100_000 {
            recorder.record(HealthEvent(.scriptError(ScriptErrorReport(type: "rejection", message: "reason \(index)")), context: context))
        }
        // The page side had already folded some away.
        recorder.record(HealthEvent(.dropped(count: 7), context: context))
        let errors = sink.events.filter { if case .scriptError = $0.kind { true } else { false } }
        #expect(errors.count == 25)
        #expect(!sink.events.contains { if case .dropped = $0.kind { true } else { false } }, "drops are reported when the launch ends")
        recorder.endLaunch("loop")
        #expect(sink.events.last?.kind == .dropped(count: 200_000 - 25 + 7))
        #expect(sink.events.last?.context.launchID == "loop")
        #expect(recorder.openLaunches == 0)
    }

    @Test func launchesAreTrackedWithinABoundAndTheOldestIsEndedFirst() {
        let sink = Collected()
        let recorder = HealthRecorder(options: .init(maxScriptErrorsPerLaunch: 0, maxOpenLaunches: 3), sinks: [sink])
        for index in 0..<10 {
            let context = Self.context("l\(index)")
            recorder.record(HealthEvent(.launch(source: .network), context: context))
            recorder.record(HealthEvent(.scriptError(ScriptErrorReport(message: "x")), context: context))
        }
        #expect(recorder.openLaunches == 3)
        let dropped = sink.events.compactMap { event -> String? in
            if case .dropped(1) = event.kind { event.context.launchID } else { nil }
        }
        #expect(dropped == (0..<7).map { "l\($0)" })
    }

    @Test func samplingKeepsOrDropsAWholeLaunch() {
        let sink = Collected()
        let recorder = HealthRecorder(options: .init(sampleRate: 0.5), sinks: [sink])
        for index in 0..<2_000 {
            let context = Self.context("launch-\(index)")
            recorder.record(HealthEvent(.launch(source: .network), context: context))
            recorder.record(HealthEvent(.ready(milliseconds: 5), context: context))
        }
        let launches = Set(sink.events.filter { $0.kind == .launch(source: .network) }.compactMap(\.context.launchID))
        let readies = Set(sink.events.filter { $0.kind == .ready(milliseconds: 5) }.compactMap(\.context.launchID))
        #expect(launches == readies)
        #expect((800...1_200).contains(launches.count), "\(launches.count) of 2000 at 50 %")
        // Events of no launch (updates) are always kept.
        recorder.record(HealthEvent(.update(way: "patch", bytes: 300, milliseconds: 12), context: Self.context(nil)))
        #expect(sink.events.last?.kind == .update(way: "patch", bytes: 300, milliseconds: 12))
    }

    @Test func theLogFileIsOpenTelemetryJSONLinesAndReadsBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-health-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = HealthLogFile(url: directory.appendingPathComponent("health.jsonl"), serviceName: "Shop", serviceVersion: "3.1")
        let context = Self.context("l1")
        let events = [
            HealthEvent(.launch(source: .pooledPackage), time: Date(timeIntervalSince1970: 1_700_000_000.25), context: context),
            HealthEvent(.pageTiming(PageTiming(responseStart: 3, domContentLoaded: 20, load: 31, firstPaint: 18, firstContentfulPaint: 18.5)),
                        time: Date(timeIntervalSince1970: 1_700_000_001), context: context),
            HealthEvent(.scriptError(ScriptErrorReport(type: "rejection", message: "nope \"quoted\"\nline", source: "app://shop/app.js",
                                                       line: 12, column: 4, stack: "f@app.js:12:4", origin: "app://shop")),
                        time: Date(timeIntervalSince1970: 1_700_000_002), context: context),
            HealthEvent(.whiteScreen(reason: "blank_page", recovery: "reload"), time: Date(timeIntervalSince1970: 1_700_000_003), context: context),
            HealthEvent(.bridgeFailure(module: "device", code: "denied"), time: Date(timeIntervalSince1970: 1_700_000_004), context: context),
            HealthEvent(.update(way: "patch", bytes: 427, milliseconds: 30), time: Date(timeIntervalSince1970: 1_700_000_005),
                        context: Self.context(nil)),
        ]
        for event in events { file.record(event) }
        let text = try String(contentsOf: file.url, encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.count == events.count)
        // Each line is an OTLP JSON LogsData with one record, semantic-convention names where they exist.
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[2].utf8)) as? [String: Any])
        let resource = (first["resourceLogs"] as? [[String: Any]])?.first
        let record = ((resource?["scopeLogs"] as? [[String: Any]])?.first?["logRecords"] as? [[String: Any]])?.first
        #expect(record?["severityText"] as? String == "ERROR")
        #expect(record?["timeUnixNano"] as? String == "1700000002000000000")
        let keys = Set((record?["attributes"] as? [[String: Any]] ?? []).compactMap { $0["key"] as? String })
        #expect(keys.isSuperset(of: ["event.name", "exception.message", "exception.type", "exception.stacktrace", "code.file.path",
                                      "code.line.number", "code.column.number", "url.full", "hybridkit.package.id",
                                      "hybridkit.package.version", "hybridkit.engine", "hybridkit.config.rule", "hybridkit.rollout.bucket"]))
        let service = ((resource?["resource"] as? [String: Any])?["attributes"] as? [[String: Any]])?.first
        #expect(service?["key"] as? String == "service.name")
        // And it reads back as the same events.
        let read = try HealthLogFile.read(file.url)
        #expect(read.skippedLines == 0)
        #expect(read.events == events)
    }

    @Test func theLogFileRotatesAndNeverGrowsPastItsBound() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-health-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = HealthLogFile(url: directory.appendingPathComponent("health.jsonl"), serviceName: "Shop", serviceVersion: "1",
                                 maxBytes: 8_192, keptFiles: 3)
        for index in 0..<500 {
            file.record(HealthEvent(.ready(milliseconds: Double(index)), context: Self.context("l\(index)")))
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files == ["health.1.jsonl", "health.2.jsonl", "health.jsonl"])
        for name in files {
            let size = try #require(try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.size] as? Int)
            #expect(size <= 8_192)
        }
        // The newest event is in the current file, the oldest ones are gone.
        let current = try HealthLogFile.read(file.url).events
        #expect(current.last?.kind == .ready(milliseconds: 499))
        #expect(file.files.count == 3)
    }

    @Test func lineNotWrittenByHybridKitAreSkippedAndCounted() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hk-health-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let file = HealthLogFile(url: url, serviceName: "Shop", serviceVersion: "1")
        file.record(HealthEvent(.ready(milliseconds: 1), context: Self.context("l")))
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("not json\n{\"resourceLogs\":[]}\n{\"truncated\n".utf8))
        try handle.close()
        let read = try HealthLogFile.read(url)
        #expect(read.events.count == 1)
        #expect(read.skippedLines == 2)
    }

    @Test func theSummaryGivesEachReleaseItsRatesAndPaintPercentiles() {
        var events: [HealthEvent] = []
        // shop@7: 10 launches, 8 ready, 1 crash, 2 white, 5 errors, paints 10…100 ms.
        for index in 0..<10 {
            let context = Self.context("a\(index)")
            events.append(HealthEvent(.launch(source: .pooledPackage), context: context))
            events.append(HealthEvent(.pageTiming(PageTiming(firstContentfulPaint: Double(index + 1) * 10)), context: context))
            if index < 8 { events.append(HealthEvent(.ready(milliseconds: 50), context: context)) }
            if index == 9 { events.append(HealthEvent(.processTerminated(reason: "crashed"), context: context)) }
            if index >= 8 { events.append(HealthEvent(.whiteScreen(reason: "blank_page", recovery: "reload"), context: context)) }
            if index < 5 { events.append(HealthEvent(.scriptError(ScriptErrorReport(message: "e")), context: context)) }
        }
        // shop@8: 2 launches, one ready; network pages: 1 launch.
        for index in 0..<2 {
            let context = Self.context("b\(index)", release: ("shop", 8))
            events.append(HealthEvent(.launch(source: .network), context: context))
            if index == 0 { events.append(HealthEvent(.ready(milliseconds: 9), context: context)) }
        }
        events.append(HealthEvent(.launch(source: .network), context: Self.context("c", release: nil)))
        events.append(HealthEvent(.dropped(count: 3), context: Self.context("a0")))
        let summaries = HealthAggregator.summarize(events)
        #expect(summaries.map(\.release) == ["network", "shop@7", "shop@8"])
        let seven = summaries[1]
        #expect(seven.launches == 10)
        #expect(seven.readyRate == 0.8)
        #expect(seven.crashFreeRate == 0.9)
        #expect(seven.whiteScreenRate == 0.2)
        #expect(seven.scriptErrorsPerLaunch == 0.5)
        #expect(seven.fcpP50 == 50 && seven.fcpP90 == 90 && seven.fcpP99 == 100)
        #expect(seven.dropped == 3)
        #expect(summaries[2].readyRate == 0.5 && summaries[2].fcpP50 == nil)
        let table = HealthAggregator.table(summaries)
        #expect(table.split(separator: "\n").count == 4)
        #expect(table.contains("shop@7") && table.contains("80.0%") && table.contains("90.0%"))
    }
}
