import Foundation
import HybridCommandLine
import HybridCore

/// `hybrid health FILE.jsonl`: the per-release table from a health log an app wrote with
/// ``HealthLogFile`` (and its rotated siblings, when given).
enum HealthCommand: HybridCommand {
    static let files: CommandArgument<[String]> = .repeated("FILE.jsonl", atLeast: 1,
                                                           help: "health logs written by HealthLogFile, with their rotated siblings")
    static let json: CommandOption<Bool> = .flag("--json", help: "print one JSON object per release instead of the table")
    static let candidate: CommandOption<String?> = .text("--candidate", "ID@N", help: "compare this release with --baseline over the same window")
    static let baseline: CommandOption<String?> = .text("--baseline", "ID@N", help: "the release the candidate replaces")
    static let rollout: CommandOption<String?> = .text("--rollout", "REPO/packages/ID/rollout.json",
                                                       help: "a staged rollout: its candidate and baseline are compared, its stages shown")
    static let html: CommandOption<String?> = .text("--html", "OUT.html", help: "also write the report page: charts as inline SVG, no script, nothing fetched")

    static var table: CommandTable {
        CommandTable(
            name: "health", summary: "Summarise a health log per release: launches, ready, crash-free, white screens, errors, paint",
            discussion: """
                Reads OpenTelemetry JSON-lines files written by HybridCore's HealthLogFile and prints one
                row per release (package id@version, or network): launches, ready rate, crash-free rate,
                white-screen rate, script errors per launch, first contentful paint p50/p90/p99 (ms) and
                events the recorder dropped. Lines that are not HybridKit health records are skipped and
                counted. Exits 1 when no file can be read, or when the files hold no valid health event at
                all (every line skipped, or all empty).
                With --candidate and --baseline it also compares the two releases over the same window
                (from the candidate's first event): crash-free, ready and white-screen rates, script errors
                per launch, FCP p90 and update failures, each by a one-sided test, and prints the verdict a
                staged rollout acts on (halt, advance, wait; docs/health.md, "Comparing a candidate"); with
                --json as one more line, {"comparison": …}. --rollout FILE takes the two releases from a
                rollout document (packages/ID/rollout.json) and shows its stages and reason. --html OUT.html
                writes one page with all of it as charts (inline SVG; the figures carry their --json values).
                """,
            arguments: [files], options: [json, candidate, baseline, rollout, html])
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let json = arguments[Self.json]
        let files = arguments[Self.files]
        let events: [HealthEvent], skipped: Int
        do {
            (events, skipped) = try readEvents(files)
        } catch let failure as UnreadableFile {
            print("hybrid health: cannot read \(failure.path): \(failure.message)")
            return 1
        }
        guard !events.isEmpty else {
            // A file of nothing but corrupt lines is not a healthy release with no launches.
            print("hybrid health: no valid health event in \(files.count) file(s)"
                + (skipped > 0 ? "; \(skipped) line(s) skipped" : "")
                + " (expected OpenTelemetry JSON lines written by HealthLogFile)")
            return 1
        }
        let summaries = HealthAggregator.summarize(events)
        var comparison: HealthComparison?
        var shown: HealthReportPage.Rollout?
        var releases = (arguments[Self.candidate], arguments[Self.baseline])
        if let path = arguments[Self.rollout] {
            guard let data = FileManager.default.contents(atPath: path) else {
                print("hybrid health: cannot read \(path)")
                return 1
            }
            let rollout = try PackageRollout.decode(data)
            shown = HealthReportPage.Rollout(id: rollout.id, candidate: rollout.candidate.version, baseline: rollout.baseline.version,
                                             stages: rollout.stages, stage: rollout.stage, state: rollout.state.rawValue, reason: rollout.reason)
            releases = (releases.0 ?? "\(rollout.id)@\(rollout.candidate.version)", releases.1 ?? "\(rollout.id)@\(rollout.baseline.version)")
        }
        switch releases {
        case (let candidate?, let baseline?): comparison = HealthComparison(events: events, candidate: candidate, baseline: baseline)
        case (nil, nil): break
        default: throw CommandLineError.missingRequired("--candidate and --baseline go together")
        }
        if let html = arguments[Self.html] {
            let page = HealthReportPage(events: events, comparison: comparison, rollout: shown)
            try Data(page.html.utf8).write(to: URL(fileURLWithPath: html), options: .atomic)
            FileHandle.standardError.write(Data("hybrid health: wrote \(html)\n".utf8))
        }
        if json {
            for summary in summaries {
                let object: JSONValue = [
                    "release": .string(summary.release), "launches": .number(Double(summary.launches)),
                    "ready_rate": .number(summary.readyRate), "crash_free_rate": .number(summary.crashFreeRate),
                    "white_screen_rate": .number(summary.whiteScreenRate),
                    "script_errors_per_launch": .number(summary.scriptErrorsPerLaunch),
                    "fcp_p50_ms": summary.fcpP50.map(JSONValue.number) ?? .null,
                    "fcp_p90_ms": summary.fcpP90.map(JSONValue.number) ?? .null,
                    "fcp_p99_ms": summary.fcpP99.map(JSONValue.number) ?? .null,
                    "dropped": .number(Double(summary.dropped)),
                ]
                print(object.jsonText)
            }
            if let comparison { let line: JSONValue = ["comparison": comparison.jsonValue]
                print(line.jsonText) }
        } else {
            print(HealthAggregator.table(summaries))
            if let comparison { print("\n" + comparison.table + "\n") }
            print("\(events.count) event(s) from \(files.count) file(s)" + (skipped > 0 ? "; \(skipped) line(s) skipped" : ""))
        }
        return 0
    }

    /// A health log that could not be read.
    struct UnreadableFile: Error, CustomStringConvertible {
        /// The file.
        var path: String
        /// Why.
        var message: String
        var description: String { "cannot read \(path): \(message)" }
    }

    /// The events of `files` and how many lines were skipped.
    /// - Throws: ``UnreadableFile``.
    static func readEvents(_ files: [String]) throws -> (events: [HealthEvent], skipped: Int) {
        var events: [HealthEvent] = []
        var skipped = 0
        for file in files {
            do {
                let read = try HealthLogFile.read(URL(fileURLWithPath: file))
                events += read.events
                skipped += read.skippedLines
            } catch {
                throw UnreadableFile(path: file, message: error.localizedDescription)
            }
        }
        return (events, skipped)
    }
}
