import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

/// What pages post to the health handler and what the health log file holds.
///
/// - A capture message is refused when over `maxMessageBytes`; a parsed one keeps its
///   documented shape (`dropped` counts are positive, error positions positive or absent).
/// - The log reader never fails on content: every line is an event or a skipped line, and
///   CRLF line ends read as LF ones do.
/// - Round trip: each event read, written as a log line and read again, is the same event
///   (its time to the microsecond, or to the `Double`'s precision far in the future).
enum HealthChecks {
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-fuzz-health-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static func check(_ bytes: [UInt8]) throws {
        try capture(text(bytes))
        try logFile(Data(bytes))
    }

    static func capture(_ message: String) throws {
        guard let parsed = HealthCapture.parse(message) else { return }
        try require(message.utf8.count <= HealthCapture.maxMessageBytes, "an oversized message was parsed")
        switch parsed {
        case .dropped(let count): try require(count > 0, "dropped \(count)")
        case .error(let report):
            try require((report.line ?? 1) > 0 && (report.column ?? 1) > 0, "a non-positive position")
            try require(report.type == "error" || report.type == "rejection", "type \(report.type)")
        case .timing: break
        }
    }

    static func logFile(_ data: Data) throws {
        let url = directory.appendingPathComponent("read.jsonl")
        try data.write(to: url)
        let (events, _) = try HealthLogFile.read(url)
        if !data.contains(UInt8(ascii: "\r")) {
            // The same log with CRLF line ends (a file that went through Windows) reads the same.
            try Data(data.flatMap { $0 == UInt8(ascii: "\n") ? [UInt8(ascii: "\r"), $0] : [$0] }).write(to: url)
            let (crlf, _) = try HealthLogFile.read(url)
            try require(crlf == events, "CRLF line ends change the events read: \(events.count) -> \(crlf.count)")
        }
        for event in events {
            let line = try HealthLogFile.line(for: event, serviceName: "fuzz", serviceVersion: "1")
            let again = directory.appendingPathComponent("again.jsonl")
            try line.write(to: again)
            let (reread, skipped) = try HealthLogFile.read(again)
            try require(reread.count == 1 && skipped == 0, "a written event reads back as \(reread.count) events, \(skipped) skipped")
            var copy = reread[0]
            // A microsecond, or a few units of the Double's precision where that is coarser (past
            // 2106 a `Date` holds no finer than 0.5–4 µs; the line's nanoseconds are exact).
            let tolerance = max(1e-6, 4 * event.time.timeIntervalSince1970.ulp)
            try require(abs(copy.time.timeIntervalSince(event.time)) <= tolerance, "time \(event.time) came back as \(copy.time)")
            copy.time = event.time
            try require(copy == event, "round trip changed \(event.kind) into \(copy.kind)")
        }
    }
}
