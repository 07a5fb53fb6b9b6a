import Foundation
import HybridBase

/// A ``HealthSink`` that appends every event to a JSON-lines file, one OpenTelemetry log
/// record per line, so a team's existing collector ships it unchanged (the OpenTelemetry
/// Collector's `otlpjsonfile` receiver reads exactly this: each line an OTLP JSON `LogsData`).
///
/// Attribute names follow OpenTelemetry's semantic conventions where one exists (`url.full`,
/// `exception.message`, `exception.stacktrace`, `code.file.path`, `code.line.number`,
/// `service.name`, `event.name`); the rest are `hybridkit.*`. The file rotates at
/// ``maxBytes``: `health.jsonl` becomes `health.1.jsonl` and so on, ``keptFiles`` in all, so it
/// never grows without bound. ``read(_:)`` turns such a file back into events (`hybrid health`).
public final class HealthLogFile: HealthSink {
    /// The file written now.
    public let url: URL
    /// The size at which the file rotates.
    public let maxBytes: Int
    /// How many files are kept, the current one included.
    public let keptFiles: Int
    /// The app, as the `service.name` / `service.version` resource attributes.
    public let serviceName: String
    /// The app's version.
    public let serviceVersion: String
    private let writer = LockedState<FileHandle?>(nil)

    /// A log at `url`, created (with its folder) on the first event.
    public init(url: URL, serviceName: String, serviceVersion: String, maxBytes: Int = 1 << 20, keptFiles: Int = 3) {
        self.url = url
        self.serviceName = serviceName
        self.serviceVersion = serviceVersion
        self.maxBytes = max(4_096, maxBytes)
        self.keptFiles = max(1, keptFiles)
    }

    deinit { writer.withLock { try? $0?.close() } }

    /// Appends `event` as one line. A write that fails (a full disk) loses that event only.
    public func record(_ event: HealthEvent) {
        guard let line = try? Self.line(for: event, serviceName: serviceName, serviceVersion: serviceVersion) else { return }
        writer.withLock { handle in
            do {
                if handle == nil { handle = try open() }
                if let current = handle, try current.seekToEnd() + UInt64(line.count) > UInt64(maxBytes) {
                    try current.close()
                    handle = nil
                    try rotate()
                    handle = try open()
                }
                try handle?.write(contentsOf: line)
            } catch {
                try? handle?.close()
                handle = nil
            }
        }
    }

    /// The files of this log, newest first (`health.jsonl`, `health.1.jsonl`, …) that exist.
    public var files: [URL] {
        (0..<keptFiles).map(rotated).filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    private func open() throws -> FileHandle {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: url.path) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
        }
        return try FileHandle(forWritingTo: url)
    }

    private func rotate() throws {
        let manager = FileManager.default
        try? manager.removeItem(at: rotated(keptFiles - 1))
        for index in stride(from: keptFiles - 2, through: 0, by: -1) where manager.fileExists(atPath: rotated(index).path) {
            try manager.moveItem(at: rotated(index), to: rotated(index + 1))
        }
        if keptFiles == 1 { try? manager.removeItem(at: url) }
    }

    /// `health.jsonl` for 0, `health.N.jsonl` for N.
    private func rotated(_ index: Int) -> URL {
        guard index > 0 else { return url }
        let base = url.deletingPathExtension()
        return base.appendingPathExtension("\(index)").appendingPathExtension(url.pathExtension.isEmpty ? "jsonl" : url.pathExtension)
    }

    // MARK: Format

    /// One line: an OTLP JSON `LogsData` holding the event as one log record, and `\n`.
    package static func line(for event: HealthEvent, serviceName: String, serviceVersion: String) throws -> Data {
        let nanos = String(unixNanos(event.time))
        var attributes = [OTLPAttribute("event.name", .string(event.name))]
        attributes += HealthAttributes.encode(event)
        let record = OTLPLogRecord(timeUnixNano: nanos, observedTimeUnixNano: nanos,
                                   severityNumber: event.severity.number, severityText: event.severity.text,
                                   body: OTLPValue(stringValue: event.summary), attributes: attributes, eventName: event.name)
        let data = OTLPLogsData(resourceLogs: [
            .init(resource: .init(attributes: [OTLPAttribute("service.name", .string(serviceName)),
                                               OTLPAttribute("service.version", .string(serviceVersion))]),
                  scopeLogs: [.init(scope: .init(name: "hybridkit"), logRecords: [record])]),
        ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(data) + Data("\n".utf8)
    }

    /// The events in the log files at `url` (oldest file first, then in file order). Lines that
    /// are not HybridKit health records are skipped and counted.
    /// - Throws: the file system's error when `url` cannot be read.
    public static func read(_ url: URL) throws -> (events: [HealthEvent], skippedLines: Int) {
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        var events: [HealthEvent] = []
        var skipped = 0
        let decoder = JSONDecoder()
        // Split on the byte: as Characters, "\r\n" is not "\n", and a log with Windows line ends
        // would read as one broken line.
        for line in Data(text.utf8).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            guard let data = try? decoder.decode(OTLPLogsData.self, from: Data(line)) else {
                skipped += 1
                continue
            }
            for record in data.resourceLogs.flatMap({ $0.scopeLogs.flatMap(\.logRecords) }) {
                let time = date(unixNanos: UInt64(record.timeUnixNano) ?? 0)
                if let event = HealthAttributes.decode(record.attributes, time: time) { events.append(event) } else { skipped += 1 }
            }
        }
        return (events, skipped)
    }
}

/// Nanoseconds since 1970, seconds and fraction apart (a Double holds 1.7e18 only to ~256 ns).
/// Saturates at `UInt64.max` (in the year 2554): a later time — a clock set far ahead, or one
/// read from a log line that said so — must not trap while being logged.
func unixNanos(_ date: Date) -> UInt64 {
    let seconds = max(0, date.timeIntervalSince1970)
    // Whole seconds up to 18446744073 fit; the fraction of the last one is the overflow check's.
    guard seconds < Double(UInt64.max / 1_000_000_000 + 1) else { return .max }
    let whole = seconds.rounded(.down)
    let (nanos, overflow) = (UInt64(whole) * 1_000_000_000).addingReportingOverflow(UInt64(((seconds - whole) * 1_000_000_000).rounded()))
    return overflow ? .max : nanos
}

/// The date `nanos` after 1970.
package func date(unixNanos nanos: UInt64) -> Date {
    Date(timeIntervalSince1970: Double(nanos / 1_000_000_000) + Double(nanos % 1_000_000_000) / 1_000_000_000)
}

extension HealthEvent {
    /// OpenTelemetry's severity for this kind: errors for script errors and crashes, warnings
    /// for white screens, rollbacks and drops, info for the rest.
    var severity: (number: Int, text: String) {
        switch kind {
        case .scriptError, .processTerminated: (17, "ERROR")
        case .whiteScreen, .rollback, .dropped, .bridgeFailure, .proxyFailure: (13, "WARN")
        default: (9, "INFO")
        }
    }

    /// A one-line human description: the log record's body.
    package var summary: String {
        switch kind {
        case .launch(let source): "page launched (\(source.rawValue))"
        case .pageTiming(let timing): "first contentful paint \(timing.firstContentfulPaint.map { "\($0) ms" } ?? "unknown")"
        case .ready(let milliseconds): "ready after \(milliseconds) ms"
        case .scriptError(let report): "\(report.type): \(report.message)"
        case .whiteScreen(let reason, let recovery): "white screen (\(reason)), \(recovery)"
        case .processTerminated(let reason): "content process terminated (\(reason))"
        case .bridgeFailure(let module, let code): "bridge call to \(module) failed: \(code)"
        case .proxyFailure(let code): "proxied request failed: \(code)"
        case .update(let way, let bytes, let milliseconds): "update by \(way): \(bytes) bytes in \(milliseconds) ms"
        case .rollback(let reason): "rolled back: \(reason)"
        case .dropped(let count): "\(count) events not recorded"
        }
    }
}

// MARK: OTLP JSON (the subset a log record needs)

/// `LogsData`.
struct OTLPLogsData: Codable {
    struct ResourceLogs: Codable {
        package var resource: Resource
        var scopeLogs: [ScopeLogs]
    }
    struct Resource: Codable { var attributes: [OTLPAttribute] }
    struct ScopeLogs: Codable {
        var scope: Scope
        var logRecords: [OTLPLogRecord]
    }
    struct Scope: Codable { var name: String }
    var resourceLogs: [ResourceLogs]
}

/// `LogRecord`.
struct OTLPLogRecord: Codable {
    var timeUnixNano: String
    var observedTimeUnixNano: String
    var severityNumber: Int
    var severityText: String
    package var body: OTLPValue
    package var attributes: [OTLPAttribute]
    var eventName: String?
}

/// `KeyValue`.
struct OTLPAttribute: Codable, Equatable {
    package var key: String
    package var value: OTLPValue

    package init(_ key: String, _ value: OTLPValue) {
        self.key = key
        self.value = value
    }
}

/// `AnyValue`, the scalar cases (OTLP JSON writes 64-bit integers as strings).
struct OTLPValue: Codable, Equatable {
    package var stringValue: String?
    package var intValue: String?
    package var doubleValue: Double?
    package var boolValue: Bool?

    package init(stringValue: String? = nil, intValue: String? = nil, doubleValue: Double? = nil, boolValue: Bool? = nil) {
        self.stringValue = stringValue
        self.intValue = intValue
        self.doubleValue = doubleValue
        self.boolValue = boolValue
    }

    package static func string(_ value: String) -> OTLPValue { OTLPValue(stringValue: value) }
    package static func int(_ value: Int) -> OTLPValue { OTLPValue(intValue: String(value)) }
    package static func double(_ value: Double) -> OTLPValue { OTLPValue(doubleValue: value) }

    package var string: String? { stringValue }
    package var int: Int? { intValue.flatMap(Int.init) ?? doubleValue.map { Int($0) } }
    package var double: Double? { doubleValue ?? intValue.flatMap(Double.init) }
}
