import Foundation
import HybridBase

/// The one page a release manager opens (`hybrid health --html OUT.html`): per release, launches
/// and the crash-free and ready rates over time, first-contentful-paint percentiles, the candidate
/// beside its baseline with the verdict, and the rollout's stages with the halt reason — drawn as
/// inline SVG, with no script and nothing fetched from anywhere (it opens offline, from a mail).
///
/// Every figure of the release table carries its exact value in `data-value`, written the way
/// `hybrid health --json` writes it (`data-release`, `data-key` name the row and the JSON key),
/// so a check can compare the page with the JSON.
public struct HealthReportPage: Sendable {
    /// A staged rollout's shape, as the page shows it (HybridPackages' `PackageRollout`, reduced to what is drawn).
    public struct Rollout: Sendable, Equatable {
        /// The package.
        public var id: String
        /// The candidate's version.
        public var candidate: Int
        /// The baseline's version.
        public var baseline: Int
        /// The stages' percentages.
        public var stages: [Double]
        /// The current stage's index.
        public var stage: Int
        /// `running`, `halted` or `completed`.
        public var state: String
        /// The last decision's reason, if any.
        public var reason: String?

        /// A rollout as drawn.
        public init(id: String, candidate: Int, baseline: Int, stages: [Double], stage: Int, state: String, reason: String?) {
            self.id = id
            self.candidate = candidate
            self.baseline = baseline
            self.stages = stages
            self.stage = stage
            self.state = state
            self.reason = reason
        }
    }

    /// The events the page is made of.
    public var events: [HealthEvent]
    /// The candidate beside its baseline, when one is compared.
    public var comparison: HealthComparison?
    /// The rollout, when one is shown.
    public var rollout: Rollout?
    /// How many time slices the charts over time have (at most).
    public var slices: Int

    /// A page of `events`, with an optional comparison and rollout.
    public init(events: [HealthEvent], comparison: HealthComparison? = nil, rollout: Rollout? = nil, slices: Int = 12) {
        self.events = events
        self.comparison = comparison
        self.rollout = rollout
        self.slices = max(1, slices)
    }

    /// The page's HTML.
    public var html: String {
        let summaries = HealthAggregator.summarize(events)
        let colors = Dictionary(uniqueKeysWithValues: summaries.enumerated().map { ($1.release, Self.palette[$0 % Self.palette.count]) })
        let timeline = self.timeline()
        var body = "<h1>Release health</h1>\n"
        body += "<p class=note>\(events.count) events, \(summaries.count) release(s)"
        if let first = events.map(\.time).min(), let last = events.map(\.time).max() {
            body += ", \(Self.escape(PackageDates.format(first))) – \(Self.escape(PackageDates.format(last)))"
        }
        body += "</p>\n"
        body += releaseTable(summaries, colors: colors)
        body += "<h2>Over time</h2>\n<div class=charts>"
        body += lineChart(title: "Launches", id: "launches", timeline: timeline, colors: colors, maximum: nil) { Double($0.launches) }
        body += lineChart(title: "Crash-free rate", id: "crash-free", timeline: timeline, colors: colors, maximum: 1) { $0.launches == 0 ? nil : $0.crashFreeRate }
        body += lineChart(title: "Ready rate", id: "ready", timeline: timeline, colors: colors, maximum: 1) { $0.launches == 0 ? nil : $0.readyRate }
        body += "</div>\n<h2>First contentful paint</h2>\n" + paintChart(summaries, colors: colors)
        if let comparison { body += comparisonSection(comparison) }
        if let rollout { body += rolloutSection(rollout) }
        return """
            <!doctype html>
            <html lang=en><head><meta charset=utf-8><title>Release health</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222 }
            table { border-collapse: collapse; margin: 8px 0 }
            td, th { padding: 3px 10px; border-bottom: 1px solid #ddd; text-align: right }
            td:first-child, th:first-child { text-align: left }
            .charts { display: flex; flex-wrap: wrap; gap: 16px }
            figure { margin: 0 } figcaption { font-weight: 600 }
            .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px }
            .verdict { font-size: 18px; font-weight: 700 } .halt { color: #c0392b } .advance { color: #1e8449 } .wait { color: #b9770e }
            .note { color: #666 }
            </style></head>
            <body>
            \(body)</body></html>

            """
    }

    // MARK: Sections

    private func releaseTable(_ summaries: [HealthAggregator.ReleaseSummary], colors: [String: String]) -> String {
        var rows = ""
        for summary in summaries {
            let release = Self.escape(summary.release)
            func cell(_ key: String, _ value: Double?, _ text: String) -> String {
                "<td data-release=\"\(release)\" data-key=\(key) data-value=\"\(value.map { JSONValue.number($0).jsonText } ?? "null")\">\(text)</td>"
            }
            rows += "<tr><td><span class=swatch style=\"background:\(colors[summary.release] ?? "#888")\"></span>\(release)</td>"
                + cell("launches", Double(summary.launches), String(summary.launches))
                + cell("ready_rate", summary.readyRate, Self.percent(summary.readyRate))
                + cell("crash_free_rate", summary.crashFreeRate, Self.percent(summary.crashFreeRate))
                + cell("white_screen_rate", summary.whiteScreenRate, Self.percent(summary.whiteScreenRate))
                + cell("script_errors_per_launch", summary.scriptErrorsPerLaunch, String(format: "%.2f", summary.scriptErrorsPerLaunch))
                + cell("fcp_p50_ms", summary.fcpP50, Self.ms(summary.fcpP50))
                + cell("fcp_p90_ms", summary.fcpP90, Self.ms(summary.fcpP90))
                + cell("fcp_p99_ms", summary.fcpP99, Self.ms(summary.fcpP99))
                + cell("dropped", Double(summary.dropped), String(summary.dropped)) + "</tr>\n"
        }
        return """
            <table id=releases><tr><th>Release</th><th>Launches</th><th>Ready</th><th>Crash-free</th><th>White</th>\
            <th>Errors/launch</th><th>FCP p50</th><th>p90</th><th>p99</th><th>Dropped</th></tr>
            \(rows)</table>

            """
    }

    /// One slice's per-release summaries, oldest slice first.
    private typealias Timeline = [(start: Date, summaries: [String: HealthAggregator.ReleaseSummary])]

    /// Events sliced by the time of the launch they belong to, so a launch's ready or crash lands with it.
    private func timeline() -> Timeline {
        guard let first = events.map(\.time).min(), let last = events.map(\.time).max() else { return [] }
        let span = max(last.timeIntervalSince(first), 1)
        let width = span / Double(slices)
        var launchTimes: [String: Date] = [:]
        for event in events { if case .launch = event.kind, let id = event.context.launchID { launchTimes[id] = event.time } }
        var sliced = Array(repeating: [HealthEvent](), count: slices)
        for event in events {
            let time = event.context.launchID.flatMap { launchTimes[$0] } ?? event.time
            sliced[min(slices - 1, Int(time.timeIntervalSince(first) / width))].append(event)
        }
        return sliced.enumerated().map { index, events in
            (first.addingTimeInterval(Double(index) * width),
             Dictionary(uniqueKeysWithValues: HealthAggregator.summarize(events).map { ($0.release, $0) }))
        }
    }

    private func lineChart(title: String, id: String, timeline: Timeline, colors: [String: String], maximum: Double?,
                           value: (HealthAggregator.ReleaseSummary) -> Double?) -> String {
        let width = 360.0, height = 180.0, left = 40.0, bottom = 20.0, top = 10.0
        let values = timeline.flatMap { $0.summaries.values.compactMap(value) }
        let ceiling = maximum ?? max(values.max() ?? 1, 1)
        let step = timeline.count > 1 ? (width - left - 10) / Double(timeline.count - 1) : 0
        func y(_ v: Double) -> Double { top + (height - top - bottom) * (1 - v / ceiling) }
        var svg = "<svg id=chart-\(id) width=\(Int(width)) height=\(Int(height)) viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=img>"
        svg += "<line x1=\(left) y1=\(y(0)) x2=\(width - 10) y2=\(y(0)) stroke=#999 />"
        svg += "<text x=2 y=\(y(ceiling) + 4) font-size=10>\(Self.axis(ceiling, rate: maximum != nil))</text><text x=2 y=\(y(0)) font-size=10>0</text>"
        for release in colors.keys.sorted() {
            let points = timeline.enumerated().compactMap { index, slice in
                slice.summaries[release].flatMap(value).map { String(format: "%.1f,%.1f", left + Double(index) * step, y($0)) }
            }
            guard !points.isEmpty else { continue }
            svg += "<polyline data-release=\"\(Self.escape(release))\" fill=none stroke=\"\(colors[release] ?? "#888")\" stroke-width=2 points=\"\(points.joined(separator: " "))\" />"
            for point in points {
                let xy = point.split(separator: ",")
                svg += "<circle cx=\(xy[0]) cy=\(xy[1]) r=2.5 fill=\"\(colors[release] ?? "#888")\" />"
            }
        }
        if let first = timeline.first?.start, let last = timeline.last?.start {
            svg += "<text x=\(left) y=\(height - 4) font-size=10>\(Self.clock(first))</text>"
            svg += "<text x=\(width - 10) y=\(height - 4) font-size=10 text-anchor=end>\(Self.clock(last))</text>"
        }
        svg += "</svg>"
        return "<figure><figcaption>\(Self.escape(title))</figcaption>\(svg)</figure>"
    }

    private func paintChart(_ summaries: [HealthAggregator.ReleaseSummary], colors: [String: String]) -> String {
        let painted = summaries.filter { $0.fcpP99 != nil }
        guard !painted.isEmpty else { return "<p class=note>No first contentful paint recorded.</p>\n" }
        let width = 480.0, bar = 14.0, row = 3 * bar + 14, left = 110.0
        let height = Double(painted.count) * row + 10
        let maximum = painted.compactMap(\.fcpP99).max() ?? 1
        var svg = "<svg id=chart-fcp width=\(Int(width)) height=\(Int(height)) viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=img>"
        for (index, summary) in painted.enumerated() {
            let y0 = 5 + Double(index) * row
            svg += "<text x=0 y=\(y0 + bar * 1.7) font-size=11>\(Self.escape(summary.release))</text>"
            for (offset, (label, value)) in [("p50", summary.fcpP50), ("p90", summary.fcpP90), ("p99", summary.fcpP99)].enumerated() {
                guard let value else { continue }
                let length = (width - left - 90) * value / maximum
                let y = y0 + Double(offset) * bar
                svg += "<rect data-release=\"\(Self.escape(summary.release))\" data-key=fcp_\(label) x=\(left) y=\(y) width=\(String(format: "%.1f", length)) height=\(bar - 2) fill=\"\(colors[summary.release] ?? "#888")\" opacity=\(1 - Double(offset) * 0.3) />"
                svg += "<text x=\(String(format: "%.1f", left + length + 4)) y=\(y + bar - 4) font-size=10>\(label) \(Self.ms(value)) ms</text>"
            }
        }
        return svg + "</svg>\n"
    }

    private func comparisonSection(_ comparison: HealthComparison) -> String {
        var html = "<h2 id=comparison>\(Self.escape(comparison.candidate.release)) beside \(Self.escape(comparison.baseline.release))</h2>\n"
        html += "<p class=\"verdict \(comparison.verdict.rawValue)\" data-verdict=\(comparison.verdict.rawValue)>\(comparison.verdict.rawValue): \(Self.escape(comparison.reason))</p>\n"
        html += "<p class=note>\(comparison.candidate.launches) candidate and \(comparison.baseline.launches) baseline launches in the same window; "
            + "one-sided two-proportion tests at z ≥ 2.576, at least 50 launches a side (docs/health.md).</p>\n"
        let rates = comparison.metrics.filter { ["crash_free_rate", "ready_rate", "white_screen_rate", "update_failure_rate"].contains($0.name) }
        let width = 480.0, bar = 14.0, row = 2 * bar + 12, left = 150.0
        var svg = "<svg id=chart-comparison width=\(Int(width)) height=\(Int(Double(rates.count) * row + 10)) role=img>"
        for (index, metric) in rates.enumerated() {
            let y0 = 5 + Double(index) * row
            svg += "<text x=0 y=\(y0 + bar * 1.3) font-size=11>\(metric.name)\(metric.worse ? " ✗" : "")</text>"
            for (offset, (side, value, color)) in [("candidate", metric.candidate, "#c0392b"), ("baseline", metric.baseline, "#2e86c1")].enumerated() {
                guard let value else { continue }
                let length = (width - left - 70) * min(max(value, 0), 1)
                let y = y0 + Double(offset) * bar
                svg += "<rect data-metric=\(metric.name) data-side=\(side) x=\(left) y=\(y) width=\(String(format: "%.1f", length)) height=\(bar - 2) fill=\(color) />"
                svg += "<text x=\(String(format: "%.1f", left + length + 4)) y=\(y + bar - 4) font-size=10>\(Self.percent(value))</text>"
            }
        }
        html += svg + "</svg>\n<table id=metrics><tr><th>Metric</th><th>Candidate</th><th>Baseline</th><th>z</th><th>Worse</th></tr>\n"
        for metric in comparison.metrics {
            html += "<tr><td>\(metric.name)</td><td data-metric=\(metric.name) data-side=candidate>\(Self.number(metric.candidate))</td>"
                + "<td data-metric=\(metric.name) data-side=baseline>\(Self.number(metric.baseline))</td>"
                + "<td>\(metric.z.map { String(format: "%.2f", $0) } ?? "-")</td><td>\(metric.worse ? "yes" : Self.escape(metric.note ?? "no"))</td></tr>\n"
        }
        return html + "</table>\n"
    }

    private func rolloutSection(_ rollout: Rollout) -> String {
        var html = "<h2 id=rollout>Rollout of \(Self.escape(rollout.id))@\(rollout.candidate) over \(rollout.baseline): \(Self.escape(rollout.state))</h2>\n"
        let width = 480.0, height = 120.0, bottom = 20.0
        let step = (width - 20) / Double(rollout.stages.count)
        var svg = "<svg id=chart-rollout width=\(Int(width)) height=\(Int(height)) role=img>"
        for (index, percent) in rollout.stages.enumerated() {
            let reached = index < rollout.stage || (index == rollout.stage && rollout.state != "halted") || rollout.state == "completed"
            let current = index == rollout.stage
            let barHeight = (height - bottom - 10) * percent / 100
            let fill = current && rollout.state == "halted" ? "#c0392b" : reached ? "#1e8449" : "#ccc"
            svg += "<rect data-stage=\(index) x=\(String(format: "%.1f", 10 + Double(index) * step)) y=\(String(format: "%.1f", height - bottom - barHeight)) "
                + "width=\(String(format: "%.1f", step - 8)) height=\(String(format: "%.1f", barHeight)) fill=\(fill)\(current ? " stroke=#222 stroke-width=2" : "") />"
            svg += "<text x=\(String(format: "%.1f", 10 + Double(index) * step)) y=\(height - 5) font-size=11>\(String(format: "%g", percent)) %</text>"
        }
        html += svg + "</svg>\n"
        if let reason = rollout.reason { html += "<p id=rollout-reason>Reason: \(Self.escape(reason))</p>\n" }
        return html
    }

    // MARK: Formatting

    private static let palette = ["#2e86c1", "#c0392b", "#1e8449", "#8e44ad", "#d68910", "#17a589", "#5d6d7e"]

    private static func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
    private static func ms(_ value: Double?) -> String { value.map { String(format: "%.0f", $0) } ?? "-" }
    private static func number(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "-" }
    /// A slice's start as `HH:mm` UTC (the page header gives the dates).
    private static func clock(_ date: Date) -> String { String(PackageDates.format(date).dropFirst(11).prefix(5)) }
    private static func axis(_ value: Double, rate: Bool) -> String { rate ? "100%" : String(format: "%g", value) }

    /// Text and attribute values made safe: release names and reasons come from files.
    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
