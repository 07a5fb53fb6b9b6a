import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridBase

/// How an ``OTLPExporter`` POSTs a batch (URLSession by default; an app may bring its own client).
public protocol OTLPTransport: Sendable {
    /// POSTs `body` with `headers` to `url`.
    /// - Returns: the response's HTTP status.
    /// - Throws: when no response came (offline, refused, timed out): the batch is retried later.
    func post(_ body: Data, headers: [String: String], to url: URL) async throws -> Int
}

/// ``OTLPTransport`` on `URLSession`.
public struct URLSessionOTLPTransport: OTLPTransport {
    /// How long one POST may take (seconds).
    public var timeout: TimeInterval

    /// A transport whose POSTs give up after `timeout` seconds.
    public init(timeout: TimeInterval = 15) { self.timeout = timeout }

    /// POSTs `body` and returns the status.
    public func post(_ body: Data, headers: [String: String], to url: URL) async throws -> Int {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}

/// A ``HealthSink`` that sends health events to an OpenTelemetry collector over OTLP/HTTP in
/// protobuf (`POST …/v1/logs`, `application/x-protobuf`): the logs data model, one log record per
/// event with the semantic-convention attribute names ``HealthLogFile`` writes.
///
/// - **Never blocks the page**: ``record(_:)`` encodes the event and appends it to a batch in
///   memory; writing and sending happen on a queue and a task of the exporter's own.
/// - **Batched**: a batch is closed at ``Options/batchSize`` events or ``Options/flushInterval``
///   after its first one, encoded as one `ExportLogsServiceRequest` and gzipped when
///   ``Options/gzip`` is given (`Content-Encoding: gzip`).
/// - **Spooled to disk, bounded**: every closed batch is written to ``Options/spoolDirectory``
///   first and removed only after the collector accepted it (2xx), so batches made offline, or
///   while the collector is down, are sent later — by this process or the next launch. The spool
///   never holds more than ``Options/maxSpoolBytes``: the oldest batches go first, and their events
///   are counted as dropped.
/// - **Retried with backoff**: no response, 408, 429 and 5xx retry the oldest batch after
///   ``Options/initialBackoff``, doubling up to ``Options/maxBackoff``, with ±20 % jitter; any
///   other status drops that batch (the collector will never take it) and counts it.
/// - **Metrics beside the logs**: when a batch closes, the events since the last window also go
///   as one `ExportMetricsServiceRequest` to ``Options/metricsEndpoint`` (``OTLPMetrics``: an event
///   count Sum and FCP, ready and update-time Histograms per release, delta temporality), through
///   the same spool, gzip and retries.
/// - **Drops are reported**: ``statistics``, and a `hybridkit.health.dropped` record with the count
///   in the next batch made.
/// - **Once each**: one sender sends the batches in order and removes each after its 2xx, so
///   within a process no event is sent twice; a process killed between a 2xx and the removal
///   sends that batch again at the next launch (at least once across crashes).
public final class OTLPExporter: HealthSink, @unchecked Sendable {
    /// Where and how to send.
    public struct Options: Sendable {
        /// The collector's logs endpoint (`http://collector:4318/v1/logs`).
        public var endpoint: URL
        /// The collector's metrics endpoint, where each closed window's ``OTLPMetrics`` go
        /// (`hybridkit.events` counts, FCP, ready and update-time histograms); by default
        /// ``endpoint`` with `/v1/logs` made `/v1/metrics`, `nil` (no metrics) for an endpoint of
        /// another path. Set it to `nil` to send logs only.
        public var metricsEndpoint: URL?
        /// Extra request headers (an API key).
        public var headers: [String: String]
        /// The resource's `service.name`.
        public var serviceName: String
        /// The resource's `service.version`.
        public var serviceVersion: String
        /// The directory of closed batches waiting to be sent.
        public var spoolDirectory: URL
        /// The most the spool holds on disk (default 4 MiB).
        public var maxSpoolBytes: Int
        /// Events per batch (default 512).
        public var batchSize: Int
        /// How long a batch stays open after its first event (default 5 s).
        public var flushInterval: TimeInterval
        /// The first retry's delay (default 1 s).
        public var initialBackoff: TimeInterval
        /// The longest delay between retries (default 5 min).
        public var maxBackoff: TimeInterval
        /// Compresses a batch to gzip (RFC 1952), or returns `nil` to send it as it is; `nil`
        /// sends every batch uncompressed. HybridCrypto's `ZlibCompressor.gzip` is one.
        public var gzip: (@Sendable (Data) -> Data?)?

        /// Options for sending to `endpoint`, spooling in `spoolDirectory`.
        public init(endpoint: URL, serviceName: String, serviceVersion: String, spoolDirectory: URL, headers: [String: String] = [:],
                    maxSpoolBytes: Int = 4 << 20, batchSize: Int = 512, flushInterval: TimeInterval = 5,
                    initialBackoff: TimeInterval = 1, maxBackoff: TimeInterval = 300, gzip: (@Sendable (Data) -> Data?)? = nil) {
            self.endpoint = endpoint
            metricsEndpoint = endpoint.path.hasSuffix("/v1/logs")
                ? endpoint.deletingLastPathComponent().appendingPathComponent("metrics") : nil
            self.serviceName = serviceName
            self.serviceVersion = serviceVersion
            self.spoolDirectory = spoolDirectory
            self.headers = headers
            self.maxSpoolBytes = max(1, maxSpoolBytes)
            self.batchSize = max(1, batchSize)
            self.flushInterval = flushInterval
            self.initialBackoff = initialBackoff
            self.maxBackoff = max(initialBackoff, maxBackoff)
            self.gzip = gzip
        }
    }

    /// What the exporter did so far.
    public struct Statistics: Sendable, Equatable {
        /// Events the collector accepted.
        public var sent = 0
        /// Events dropped: batches pushed out of a full spool, or refused by the collector for good.
        public var dropped = 0
        /// POSTs that failed and will be retried.
        public var failedAttempts = 0
        /// Batches waiting in the spool now.
        public var spooledBatches = 0
        /// Metrics windows waiting in the spool now.
        public var spooledMetricWindows = 0
        /// Bytes the spool holds now.
        public var spooledBytes = 0
        /// The most the spool ever held.
        public var peakSpooledBytes = 0
        /// Metrics windows the collector accepted.
        public var metricWindowsSent = 0
    }

    private struct State {
        var pending: [OTLPLogRecord] = []
        /// The metrics of the events since the last window closed.
        var window: OTLPMetrics?
        /// Where the next window starts: the last one's end (Unix nanoseconds).
        var windowStart: UInt64?
        var unreportedDrops = 0
        var timerArmed = false
        var sending = false
        var inFlight: Int?
        var sequence = 0
        var statistics = Statistics()
    }

    /// The exporter's options.
    public let options: Options
    private let transport: any OTLPTransport
    private let state = LockedState(State())
    private let queue = DispatchQueue(label: "hybridkit.otlp-exporter")

    /// An exporter with `options`, sending through `transport`; batches a previous run left in the spool are sent first.
    public init(options: Options, transport: any OTLPTransport = URLSessionOTLPTransport()) {
        self.options = options
        self.transport = transport
        let files = spoolFiles()
        let bytes = files.reduce(0) { $0 + $1.bytes }
        state.withLock { state in
            state.sequence = (files.last?.sequence ?? 0) + 1
            state.statistics.spooledBatches = files.count { !$0.metrics }
            state.statistics.spooledMetricWindows = files.count { $0.metrics }
            state.statistics.spooledBytes = bytes
            state.statistics.peakSpooledBytes = bytes
        }
        if !files.isEmpty { startSending() }
    }

    /// Takes one event: encoded now, written and sent later, off the caller's thread.
    public func record(_ event: HealthEvent) {
        let record = HealthLogFile.record(for: event)
        let measured = options.metricsEndpoint != nil
        let (full, arm) = state.withLock { state -> (Bool, Bool) in
            state.pending.append(record)
            if measured {
                if state.window == nil { state.window = OTLPMetrics(start: state.windowStart ?? unixNanos(event.time)) }
                state.window?.add(event)
            }
            let arm = !state.timerArmed
            state.timerArmed = true
            return (state.pending.count >= options.batchSize, arm)
        }
        if full {
            queue.async { self.closeBatch() }
        } else if arm {
            queue.asyncAfter(deadline: .now() + options.flushInterval) { self.closeBatch() }
        }
    }

    /// What the exporter did so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Closes the open batch and waits until the spool is empty (everything sent) or `timeout` passes.
    /// - Returns: `true` when everything recorded so far was sent.
    @discardableResult
    public func flush(timeout: TimeInterval = 30) async -> Bool {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async {
                self.closeBatch()
                done.resume()
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if state.withLock({ !$0.sending && $0.statistics.spooledBatches + $0.statistics.spooledMetricWindows == 0
                && $0.pending.isEmpty }) { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return false
    }

    // MARK: Spool (on the queue)

    /// Spools what is pending, ``Options/batchSize`` events a batch.
    private func closeBatch() {
        while spoolBatch() {}
        spoolMetrics()
        startSending()
    }

    /// Spools the metrics of the events since the last window, as one window.
    private func spoolMetrics() {
        let (window, sequence) = state.withLock { state -> (OTLPMetrics?, Int) in
            guard let window = state.window, !window.isEmpty else { return (nil, 0) }
            state.window = nil
            state.windowStart = window.end
            state.sequence += 1
            return (window, state.sequence - 1)
        }
        guard let window else { return }
        let body = OTLPProtobuf.encode(window, serviceName: options.serviceName, serviceVersion: options.serviceVersion)
        // A window that cannot be written is lost: the log records still carry every event.
        guard write(body, stem: String(format: "%012d", sequence) + "-0-0", kind: "metrics.pb") else { return }
        enforceBound()
    }

    /// Spools one batch of what is pending. - Returns: whether events remain.
    private func spoolBatch() -> Bool {
        let (records, drops, sequence, more) = state.withLock { state -> ([OTLPLogRecord], Int, Int, Bool) in
            state.timerArmed = false
            let records = Array(state.pending.prefix(options.batchSize))
            state.pending.removeFirst(records.count)
            let drops = records.isEmpty ? 0 : state.unreportedDrops
            state.unreportedDrops -= drops
            state.sequence += records.isEmpty ? 0 : 1
            return (records, drops, state.sequence - 1, !state.pending.isEmpty)
        }
        guard !records.isEmpty else { return false }
        var batch = records
        if drops > 0 {
            batch.append(HealthLogFile.record(for: HealthEvent(.dropped(count: drops), context: HealthContext(engine: ""))))
        }
        let body = OTLPProtobuf.encode(OTLPLogsData(records: batch, serviceName: options.serviceName, serviceVersion: options.serviceVersion))
        // Sequence, events, and the drop count the batch reports (reported again if the batch is dropped in turn).
        guard write(body, stem: String(format: "%012d", sequence) + "-\(records.count)-\(drops)", kind: "pb") else {
            drop(records.count, reporting: drops)
            return more
        }
        enforceBound()
        return more
    }

    /// Writes `body` to the spool as `STEM.KIND`, or `STEM.KIND.gz` gzipped when ``Options/gzip``
    /// compresses it. - Returns: whether it was written.
    private func write(_ body: Data, stem: String, kind: String) -> Bool {
        var body = body
        var name = "\(stem).\(kind)"
        if let gzip = options.gzip, let compressed = gzip(body) {
            body = compressed
            name += ".gz"
        }
        do {
            try FileManager.default.createDirectory(at: options.spoolDirectory, withIntermediateDirectories: true)
            try body.write(to: options.spoolDirectory.appendingPathComponent(name), options: .atomic)
            return true
        } catch {
            return false
        }
    }

    /// Removes the oldest batches while the spool is over its bound, counting their events.
    private func enforceBound() {
        var files = spoolFiles()
        var total = files.reduce(0) { $0 + $1.bytes }
        let inFlight = state.withLock { $0.inFlight }
        // The batch being sent stays: it may be delivered already.
        while total > options.maxSpoolBytes, let index = files.firstIndex(where: { $0.sequence != inFlight }) {
            let oldest = files.remove(at: index)
            try? FileManager.default.removeItem(at: oldest.url)
            total -= oldest.bytes
            drop(oldest.events, reporting: oldest.reportedDrops)
        }
        state.withLock { state in
            state.statistics.spooledBatches = files.count { !$0.metrics }
            state.statistics.spooledMetricWindows = files.count { $0.metrics }
            state.statistics.spooledBytes = total
            state.statistics.peakSpooledBytes = max(state.statistics.peakSpooledBytes, total)
        }
    }

    /// Counts `events` dropped; `reporting` is the drop count a dropped batch carried, to report again.
    private func drop(_ events: Int, reporting carried: Int = 0) {
        state.withLock { state in
            state.statistics.dropped += events
            state.unreportedDrops += events + carried
        }
    }

    private struct SpoolFile {
        var url: URL
        var sequence: Int
        var events: Int
        var reportedDrops: Int
        var bytes: Int
        var gzipped: Bool
        /// A metrics window (`….metrics.pb`), not log records.
        var metrics: Bool
    }

    /// The spool's batches, oldest first.
    private func spoolFiles() -> [SpoolFile] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: options.spoolDirectory.path)) ?? []
        return names.compactMap { name -> SpoolFile? in
            let parts = name.split(separator: ".", maxSplits: 1)
            let head = parts.first?.split(separator: "-") ?? []
            guard head.count == 3, let sequence = Int(head[0]), let events = Int(head[1]), let drops = Int(head[2]), parts.count == 2,
                  ["pb", "pb.gz", "metrics.pb", "metrics.pb.gz"].contains(parts[1]) else { return nil }
            let url = options.spoolDirectory.appendingPathComponent(name)
            let bytes = ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
            return SpoolFile(url: url, sequence: sequence, events: events, reportedDrops: drops, bytes: bytes,
                             gzipped: parts[1].hasSuffix(".gz"), metrics: parts[1].hasPrefix("metrics."))
        }.sorted { $0.sequence < $1.sequence }
    }

    // MARK: Sending (one task at a time)

    private func startSending() {
        let start = state.withLock { state -> Bool in
            guard !state.sending else { return false }
            state.sending = true
            return true
        }
        if start { Task.detached { await self.sendAll() } }
    }

    private func sendAll() async {
        var backoff = options.initialBackoff
        while true {
            guard let file = spoolFiles().first else {
                let again = state.withLock { state -> Bool in
                    // A batch spooled while the last send finished is picked up here, not lost.
                    state.sending = !spoolFiles().isEmpty
                    return state.sending
                }
                if again { continue }
                return
            }
            guard let body = try? Data(contentsOf: file.url) else {
                try? FileManager.default.removeItem(at: file.url)
                continue
            }
            var headers = options.headers
            headers["Content-Type"] = "application/x-protobuf"
            if file.gzipped { headers["Content-Encoding"] = "gzip" }
            state.withLock { $0.inFlight = file.sequence }
            let status = try? await transport.post(body, headers: headers, to: file.metrics ? options.metricsEndpoint ?? options.endpoint : options.endpoint)
            state.withLock { $0.inFlight = nil }
            switch status {
            case let status? where (200..<300).contains(status):
                try? FileManager.default.removeItem(at: file.url)
                state.withLock { state in
                    state.statistics.sent += file.events
                    if file.metrics { state.statistics.metricWindowsSent += 1 }
                }
                backoff = options.initialBackoff
            case let status? where ![408, 429].contains(status) && !(500..<600).contains(status):
                try? FileManager.default.removeItem(at: file.url)   // the collector will never take it
                drop(file.events, reporting: file.reportedDrops)
            default:
                state.withLock { $0.statistics.failedAttempts += 1 }
                let jitter = Double.random(in: 0.8...1.2)
                try? await Task.sleep(nanoseconds: UInt64(backoff * jitter * 1_000_000_000))
                backoff = min(backoff * 2, options.maxBackoff)
            }
            let files = spoolFiles()
            state.withLock { state in
                state.statistics.spooledBatches = files.count { !$0.metrics }
                state.statistics.spooledMetricWindows = files.count { $0.metrics }
                state.statistics.spooledBytes = files.reduce(0) { $0 + $1.bytes }
            }
        }
    }
}
