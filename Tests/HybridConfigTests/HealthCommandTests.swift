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

/// `hybrid health --html`: the report page, opened in the Chromium the project installs.
@Suite("hybrid health --html")
struct HealthReportPageTests {
    /// Lays the page out in headless Chromium with a checker appended to a copy of it (the page
    /// itself has no script), and returns what the checker saw: each SVG's size and drawn shapes,
    /// every figure of the release table by release and key, and the verdict.
    func render(_ page: URL) throws -> Data {
        let copy = page.deletingLastPathComponent().appendingPathComponent("checked.html")
        let checker = """
            <script>
            const out = { svgs: [], values: {}, verdict: null, reason: document.getElementById('rollout-reason')?.textContent ?? null };
            for (const svg of document.querySelectorAll('svg')) {
              const box = svg.getBoundingClientRect();
              const shapes = [...svg.querySelectorAll('polyline, rect, circle')].filter((e) => { const b = e.getBBox(); return b.width > 0 && b.height > 0; }).length;
              out.svgs.push({ id: svg.id, width: box.width, height: box.height, shapes });
            }
            for (const td of document.querySelectorAll('td[data-release][data-key]')) {
              (out.values[td.dataset.release] ??= {})[td.dataset.key] = JSON.parse(td.dataset.value);
            }
            out.verdict = document.querySelector('[data-verdict]')?.dataset.verdict ?? null;
            document.documentElement.dataset.check = JSON.stringify(out);
            </script>
            """
        try Data((try String(contentsOf: page, encoding: .utf8) + checker).utf8).write(to: copy)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chromium")
        process.arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                             "--user-data-dir=\(page.deletingLastPathComponent().appendingPathComponent("chromium").path)",
                             "--dump-dom", copy.absoluteString]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let dom = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let attribute = try #require(dom.range(of: "data-check=\""), "no check in the dumped DOM: \(dom.prefix(300))")
        let rest = dom[attribute.upperBound...]
        let json = String(rest[..<rest.firstIndex(of: "\"")!]).replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        return Data(json.utf8)
    }

    @Test func thePageRendersItsChartsAndItsNumbersAreTheJSONs() async throws {
        let tool = try HybridTool.built()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-health-html-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = HealthLogFile(url: directory.appendingPathComponent("health.jsonl"), serviceName: "Shop", serviceVersion: "1")
        let start = Date().addingTimeInterval(-3600)
        for index in 0..<240 {
            let version = index % 4 == 0 ? 8 : 7                  // the candidate on a quarter of the launches
            let time = start.addingTimeInterval(Double(index) * 15)
            let context = HealthContext(packageID: "shop", packageVersion: version, engine: "webkitgtk", launchID: "l\(index)")
            log.record(HealthEvent(.launch(source: .package), time: time, context: context))
            if version == 8, index % 8 == 0 {
                log.record(HealthEvent(.processTerminated(reason: "crashed"), time: time, context: context))
                continue
            }
            log.record(HealthEvent(.pageTiming(PageTiming(firstContentfulPaint: Double(90 + index % 50))), time: time, context: context))
            log.record(HealthEvent(.ready(milliseconds: 100), time: time, context: context))
        }
        let rollout = directory.appendingPathComponent("rollout.json")
        func pointer(_ version: Int) -> PackagePointer {
            PackagePointer(id: "shop", version: version, manifest: PackageRepositoryLayout.manifest(id: "shop", version: version),
                           manifestSHA256: String(repeating: "a", count: 64), created: start)
        }
        let document = PackageRollout(id: "shop", sequence: 3, candidate: pointer(8), baseline: pointer(7), stages: [1, 10, 50, 100],
                                      stage: 1, state: .halted, reason: "crash_free_rate <b>0.5</b> vs 1.0")
        try document.encoded().write(to: rollout)
        let page = directory.appendingPathComponent("report.html")
        let run = try await offPool {
            try tool.run(["health", log.url.path, "--rollout", rollout.path, "--html", page.path, "--json"], errors: .discarded)
        }
        #expect(run.status == 0, "\(run.output)")
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(!html.contains("<script") && !html.contains("http://") && !html.contains("https://"), "self-contained, nothing fetched")
        #expect(html.contains("&lt;b&gt;0.5&lt;/b&gt;"), "text from files is escaped")

        let rendered = try await offPool { try render(page) }
        let checked = try #require(try JSONSerialization.jsonObject(with: rendered) as? [String: Any])
        let svgs = try #require(checked["svgs"] as? [[String: Any]])
        #expect(Set(svgs.compactMap { $0["id"] as? String }) == ["chart-launches", "chart-crash-free", "chart-ready", "chart-fcp", "chart-comparison", "chart-rollout"])
        for svg in svgs {
            #expect((svg["width"] as? Double ?? 0) > 100 && (svg["height"] as? Double ?? 0) > 50, "\(svg)")
            #expect((svg["shapes"] as? Int ?? 0) >= 2, "drawn: \(svg)")
        }
        // Every figure in the page is the one --json printed.
        let lines = run.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let releases = lines.filter { $0["release"] != nil }
        #expect(releases.count == 2)
        let values = try #require(checked["values"] as? [String: [String: Any]])
        for release in releases {
            let name = try #require(release["release"] as? String)
            let shown = try #require(values[name], "\(name) in the page")
            for (key, value) in release where key != "release" {
                #expect("\(shown[key] ?? "missing")" == "\(value)", "\(name) \(key): page \(shown[key] ?? "missing"), json \(value)")
            }
        }
        let comparison = try #require(lines.first { $0["comparison"] != nil }?["comparison"] as? [String: Any])
        #expect(checked["verdict"] as? String == comparison["verdict"] as? String)
        #expect((checked["reason"] as? String)?.contains("<b>0.5</b>") == true)
    }
}
