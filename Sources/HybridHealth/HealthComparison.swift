import Foundation
import HybridBase

/// A staged rollout's candidate release beside the baseline it replaces, over the same window,
/// with a verdict: halt, advance, or wait for more launches (`hybrid health --compare`,
/// `hybrid rollout advance --auto`).
///
/// **The rule.** Each rate is compared with a **one-sided two-proportion z-test** (pooled), which
/// asks only "is the candidate worse?"; a metric fails when the candidate is worse with
/// `z ≥` ``Rule/z`` (2.576: a false halt on a healthy candidate about once in 200 checks per metric)
/// **and** by more than ``Rule/tolerance`` (half a percentage point; a real but tiny difference
/// is not worth a halt). Script errors per launch are counts, compared as Poisson rates with the
/// same z; FCP p90 by the share of candidate launches slower than the baseline's p90 (10 % when
/// they are alike), tested against 10 % the same way, and only when the candidate's p90 is also
/// over ``Rule/fcpSlowdown`` times the baseline's. Nothing is judged before each side has
/// ``Rule/minimumLaunches`` launches (a 50 % crash rate on 4 launches is noise; on 50 it is
/// not); until then the verdict is `wait`. Update failures are judged once each side has
/// ``Rule/minimumUpdates`` updates and never hold an advance back before that.
///
/// Why a z-test and not Wilson intervals that must not overlap: comparing two intervals is a
/// test at a much smaller α than it says (≈ 0.6 % for two 95 % intervals) with less power, and
/// it cannot say by how much; the z-test's α is the one written here, and the tolerance keeps a
/// large window from halting on a difference nobody would notice.
public struct HealthComparison: Sendable, Equatable {
    /// The thresholds of the rule.
    public struct Rule: Sendable, Equatable {
        /// Launches each side needs before anything is judged.
        public var minimumLaunches: Int
        /// Updates each side needs before update failures are judged.
        public var minimumUpdates: Int
        /// The one-sided z a metric must reach to count as worse (2.576 ≈ α 0.5 %).
        public var z: Double
        /// How much worse a rate must be, absolutely (0.005 = half a percentage point).
        public var tolerance: Double
        /// How much slower the candidate's FCP p90 must be, as a ratio, before it can fail.
        public var fcpSlowdown: Double

        /// The rule; by default 50 launches and 20 updates a side, z 2.576, tolerance 0.005, FCP 1.2×.
        public init(minimumLaunches: Int = 50, minimumUpdates: Int = 20, z: Double = 2.576, tolerance: Double = 0.005,
                    fcpSlowdown: Double = 1.2) {
            self.minimumLaunches = minimumLaunches
            self.minimumUpdates = minimumUpdates
            self.z = z
            self.tolerance = tolerance
            self.fcpSlowdown = fcpSlowdown
        }
    }

    /// One side's figures over the window.
    public struct Side: Sendable, Equatable {
        /// `id@version`.
        public var release: String
        /// Launches in the window.
        public var launches: Int
        /// Launches whose content process never died.
        public var crashFree: Int
        /// Launches that said ready.
        public var ready: Int
        /// Launches that went white at least once.
        public var whiteScreens: Int
        /// Script errors recorded.
        public var scriptErrors: Int
        /// First contentful paints, ms, sorted.
        public var paints: [Double]
        /// Updates recorded under the release.
        public var updates: Int
        /// Updates that failed.
        public var failedUpdates: Int

        /// The 90th percentile FCP (nearest rank), `nil` with no paints.
        public var fcpP90: Double? { HealthAggregator.percentile(paints, 0.9) }
    }

    /// One metric's comparison.
    public struct Metric: Sendable, Equatable {
        /// `crash_free_rate`, `ready_rate`, `white_screen_rate`, `script_errors_per_launch`, `fcp_p90_ms`, `update_failure_rate`.
        public var name: String
        /// The candidate's value.
        public var candidate: Double?
        /// The baseline's value.
        public var baseline: Double?
        /// The one-sided z of "the candidate is worse" (`nil` when not judged).
        public var z: Double?
        /// Whether the candidate is worse by the rule.
        public var worse: Bool
        /// Why it was not judged, if it was not (`too few updates`).
        public var note: String?
    }

    /// What to do with the rollout.
    public enum Verdict: String, Sendable, Equatable {
        /// A metric is worse: stop the rollout.
        case halt
        /// Enough launches on both sides, nothing worse: go to the next stage.
        case advance
        /// Too few launches to judge: keep the stage.
        case wait
    }

    /// The candidate's figures.
    public var candidate: Side
    /// The baseline's figures.
    public var baseline: Side
    /// The window both sides were counted over: from the candidate's first event to the last event seen.
    public var window: ClosedRange<Date>?
    /// Every metric.
    public var metrics: [Metric]
    /// The verdict.
    public var verdict: Verdict
    /// The verdict's reason, one line (`crash_free_rate 0.500 vs 1.000 (z 9.1)`).
    public var reason: String

    /// Compares release `candidate` with `baseline` (`id@version`) in `events` under `rule`.
    public init(events: [HealthEvent], candidate: String, baseline: String, rule: Rule = Rule()) {
        let start = events.filter { $0.context.release == candidate }.map(\.time).min()
        let end = events.map(\.time).max()
        let window = start.flatMap { start in end.map { start...max(start, $0) } }
        let inWindow = window.map { window in events.filter { window.contains($0.time) } } ?? []
        self.window = window
        self.candidate = Self.side(candidate, inWindow)
        self.baseline = Self.side(baseline, inWindow)
        metrics = Self.metrics(self.candidate, self.baseline, rule)
        let failing = metrics.filter(\.worse)
        if !failing.isEmpty {
            verdict = .halt
            reason = failing.map(Self.describe).joined(separator: "; ")
        } else if self.candidate.launches < rule.minimumLaunches || self.baseline.launches < rule.minimumLaunches {
            verdict = .wait
            reason = "too few launches to judge: candidate \(self.candidate.launches), baseline \(self.baseline.launches) (need \(rule.minimumLaunches) each)"
        } else {
            verdict = .advance
            reason = "no metric worse over \(self.candidate.launches) candidate and \(self.baseline.launches) baseline launches"
        }
    }

    private static func side(_ release: String, _ events: [HealthEvent]) -> Side {
        var launches = Set<String>(), crashed = Set<String>(), ready = Set<String>(), white = Set<String>()
        var launchCount = 0, errors = 0, updates = 0, failed = 0
        var paints: [Double] = []
        for event in events where event.context.release == release {
            let launch = event.context.launchID ?? ""
            switch event.kind {
            case .launch:
                launchCount += 1
                launches.insert(launch)
            case .ready: ready.insert(launch)
            case .processTerminated: crashed.insert(launch)
            case .whiteScreen: white.insert(launch)
            case .scriptError: errors += 1
            case .pageTiming(let timing): if let paint = timing.firstContentfulPaint { paints.append(paint) }
            case .update(let way, _, _):
                updates += 1
                if way == "failed" { failed += 1 }
            default: break
            }
        }
        return Side(release: release, launches: launchCount, crashFree: launchCount - crashed.intersection(launches).count,
                    ready: ready.intersection(launches).count, whiteScreens: white.intersection(launches).count,
                    scriptErrors: errors, paints: paints.sorted(), updates: updates, failedUpdates: failed)
    }

    private static func metrics(_ c: Side, _ b: Side, _ rule: Rule) -> [Metric] {
        let enough = c.launches >= rule.minimumLaunches && b.launches >= rule.minimumLaunches
        let tooFew = enough ? nil : "too few launches"
        func rate(_ name: String, _ cx: Int, _ cn: Int, _ bx: Int, _ bn: Int, higherIsBetter: Bool, judged: Bool, note: String?) -> Metric {
            let cr = cn == 0 ? nil : Double(cx) / Double(cn), br = bn == 0 ? nil : Double(bx) / Double(bn)
            guard judged, let cr, let br else { return Metric(name: name, candidate: cr, baseline: br, z: nil, worse: false, note: note) }
            // Pooled one-sided z, positive when the candidate is worse: a lower good rate, or a higher bad one.
            let pooled = Double(cx + bx) / Double(cn + bn)
            let error = (pooled * (1 - pooled) * (1 / Double(cn) + 1 / Double(bn))).squareRoot()
            let gap = higherIsBetter ? br - cr : cr - br
            let z = error > 0 ? gap / error : 0
            return Metric(name: name, candidate: cr, baseline: br, z: z, worse: z >= rule.z && gap > rule.tolerance, note: nil)
        }
        var metrics = [
            rate("crash_free_rate", c.crashFree, c.launches, b.crashFree, b.launches, higherIsBetter: true, judged: enough, note: tooFew),
            rate("ready_rate", c.ready, c.launches, b.ready, b.launches, higherIsBetter: true, judged: enough, note: tooFew),
            rate("white_screen_rate", c.whiteScreens, c.launches, b.whiteScreens, b.launches, higherIsBetter: false, judged: enough, note: tooFew),
        ]
        // Script errors: Poisson rates per launch.
        let cl = Double(c.launches), bl = Double(b.launches)
        var errors = Metric(name: "script_errors_per_launch", candidate: c.launches == 0 ? nil : Double(c.scriptErrors) / cl,
                            baseline: b.launches == 0 ? nil : Double(b.scriptErrors) / bl, z: nil, worse: false, note: tooFew)
        if enough, let cr = errors.candidate, let br = errors.baseline {
            let pooled = Double(c.scriptErrors + b.scriptErrors) / (cl + bl)
            let z = pooled == 0 ? 0 : (cr - br) / (pooled * (1 / cl + 1 / bl)).squareRoot()
            errors.z = z
            errors.worse = z >= rule.z && cr - br > rule.tolerance
        }
        metrics.append(errors)
        // FCP p90: the share of candidate paints above the baseline's p90 against the 10 % it would be.
        var fcp = Metric(name: "fcp_p90_ms", candidate: c.fcpP90, baseline: b.fcpP90, z: nil, worse: false, note: nil)
        if c.paints.count >= rule.minimumLaunches, b.paints.count >= rule.minimumLaunches, let cp = c.fcpP90, let bp = b.fcpP90 {
            let above = Double(c.paints.filter { $0 > bp }.count) / Double(c.paints.count)
            let z = (above - 0.1) / (0.1 * 0.9 / Double(c.paints.count)).squareRoot()
            fcp.z = z
            fcp.worse = z >= rule.z && cp > bp * rule.fcpSlowdown
        } else {
            fcp.note = "too few paints"
        }
        metrics.append(fcp)
        let updatesEnough = c.updates >= rule.minimumUpdates && b.updates >= rule.minimumUpdates
        metrics.append(rate("update_failure_rate", c.failedUpdates, c.updates, b.failedUpdates, b.updates, higherIsBetter: false,
                            judged: updatesEnough, note: updatesEnough ? nil : "too few updates"))
        return metrics
    }

    private static func describe(_ metric: Metric) -> String {
        func value(_ v: Double?) -> String { v.map { String(format: "%.3f", $0) } ?? "-" }
        return "\(metric.name) \(value(metric.candidate)) vs \(value(metric.baseline))" + (metric.z.map { String(format: " (z %.1f)", $0) } ?? "")
    }
}

extension HealthComparison {
    /// The comparison as one JSON object (what `hybrid health --candidate … --baseline … --json` prints):
    /// `verdict`, `reason`, `candidate` and `baseline` (release, launches), and `metrics` (name, candidate,
    /// baseline, z, worse, note).
    public var jsonValue: JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map { .number(($0 * 1e6).rounded() / 1e6) } ?? .null }
        func side(_ side: Side) -> JSONValue {
            ["release": .string(side.release), "launches": .number(Double(side.launches)), "updates": .number(Double(side.updates))]
        }
        return [
            "verdict": .string(verdict.rawValue), "reason": .string(reason),
            "candidate": side(candidate), "baseline": side(baseline),
            "metrics": .array(metrics.map { metric in
                ["name": .string(metric.name), "candidate": number(metric.candidate), "baseline": number(metric.baseline),
                 "z": number(metric.z), "worse": .bool(metric.worse), "note": metric.note.map(JSONValue.string) ?? .null]
            }),
        ]
    }

    /// The comparison as a table, one metric per row, and the verdict.
    public var table: String {
        func value(_ v: Double?) -> String { v.map { String(format: "%.3f", $0) } ?? "-" }
        var lines = ["METRIC                     CANDIDATE   BASELINE    Z       WORSE"]
        for metric in metrics {
            lines.append(metric.name.padding(toLength: 27, withPad: " ", startingAt: 0)
                + value(metric.candidate).padding(toLength: 12, withPad: " ", startingAt: 0)
                + value(metric.baseline).padding(toLength: 12, withPad: " ", startingAt: 0)
                + (metric.z.map { String(format: "%.2f", $0) } ?? "-").padding(toLength: 8, withPad: " ", startingAt: 0)
                + (metric.worse ? "yes" : metric.note ?? "no"))
        }
        lines.append("\(candidate.release) (\(candidate.launches) launches) vs \(baseline.release) (\(baseline.launches) launches)")
        lines.append("verdict: \(verdict.rawValue): \(reason)")
        return lines.joined(separator: "\n")
    }
}
