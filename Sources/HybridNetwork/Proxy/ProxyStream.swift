import Foundation
import HybridBridge
import HybridBase

/// Carries a proxied request's progress to the page in order, coalescing what piles up.
///
/// The transfer reports on URLSession's queue; the relay (``ProxyModule``) sends on the main
/// actor, one bridge message per report. What arrives while a message is on its way waits and
/// goes in the next batch: body bytes join into one report (the head's, or one `data` report),
/// so a fast response costs few messages. The head waits ``headHold`` for the body to finish:
/// a response that is over by then costs no report at all — the reply carries its head and
/// whole body, as an unstreamed one would, text as text. Body bytes of a UTF-8 textual type
/// travel as text too (split on a character boundary). Nothing is dropped but upload reports
/// that a newer one replaced before they were sent. Pulls for a streamed request body's slices
/// (``ProxyBodySource``) go in the same order.
///
/// Given a way to open a byte feed (``BridgeByteFeed``: the view has a byte channel and the page
/// asked for one, ``ProxyRequest/feed``), a body that reaches the channel's threshold stops going in
/// reports: one `data` report names the feed, and every byte from then on is written to it, so the
/// page reads the rest of the body with one request to the channel as it arrives.
final class ProxyStream: @unchecked Sendable {
    /// Sends one report to the page (the bridge call's progress), on the main actor.
    typealias Send = @MainActor @Sendable (ProxyProgress) async -> Void

    /// How long the head waits for the rest of a response before it goes on its own. A page
    /// cannot tell a fetch that resolved this much later; a loopback or small response is then
    /// one bridge message instead of three.
    static let headHold: TimeInterval = 0.003

    private let lock = NSLock()
    private var reports: [ProxyProgress] = []
    private var head: ProxyResponse?
    private var headAt = Date.distantPast
    private var headSent = false
    private var textual = false
    private var pending = Data()
    private var received: Int64 = 0
    private var finished = false
    private var waiter: CheckedContinuation<[ProxyProgress]?, Never>?
    private let send: Send?
    private var relay: Task<Void, Never>?
    /// A body continues in a feed once it has reached this many bytes: a feed costs the page one
    /// request of its own, which a body below it does not repay (`bench proxy`'s 64 KB echo: with a
    /// 64 KB threshold its replies took feeds, proxy_fetch_ms 7.2–8.5 against 5.8–6.2 without).
    static let feedThreshold = 1 << 20
    /// Opens the feed the body continues in, once the body reaches ``feedThreshold``.
    private let openFeed: (@Sendable () -> BridgeByteFeed?)?
    private let feedThreshold: Int
    private var feed: BridgeByteFeed?

    /// A stream; with `send`, a relay task sends its batches in order, made only once there is
    /// something to send (a request with nothing to report costs no main-actor work). Without
    /// it, ``next()`` gives the batches to whoever asks.
    /// - Parameters:
    ///   - openFeed: Opens a byte feed for the rest of a body of at least `feedThreshold` bytes
    ///     waiting; `nil` (or a `nil` feed) keeps every byte in reports.
    init(openFeed: (@Sendable () -> BridgeByteFeed?)? = nil, feedThreshold: Int = ProxyStream.feedThreshold, send: Send? = nil) {
        self.send = send
        self.openFeed = openFeed
        self.feedThreshold = feedThreshold
    }

    /// What the proxy reports into this stream.
    var events: RequestProxy.Events {
        RequestProxy.Events(upload: { [weak self] in self?.upload($0) },
                            head: { [weak self] in self?.receive(head: $0) },
                            data: { [weak self] in try self?.receive(data: $0) })
    }

    /// Upload progress: a report still waiting to be sent is replaced by the newer one (a large
    /// upload reports every few kilobytes; the page needs the latest count, in order).
    func upload(_ report: ProxyProgress) {
        lock.withLock {
            guard !finished else { return }
            if reports.last?.phase == "upload" { reports[reports.count - 1] = report } else { reports.append(report) }
        }
        wake()
    }

    /// A report-only policy's violation, for the page to fire as an event (never dropped).
    func violation(_ violation: ContentSecurityPolicy.Violation) {
        lock.withLock {
            guard !finished else { return }
            var report = ProxyProgress(phase: "violation", loaded: 0, total: -1)
            report.violation = violation
            reports.append(report)
        }
        wake()
    }

    /// Asks the page for a slice of the request's streamed body (never dropped or coalesced).
    func pull(_ request: ProxyPull) {
        lock.withLock {
            guard !finished else { return }
            reports.append(ProxyProgress(phase: "pull", loaded: request.offset, total: -1, pull: request))
        }
        wake()
    }

    private func receive(head response: ProxyResponse) {
        lock.withLock {
            guard !finished else { return }
            head = response
            headAt = Date()
            textual = ProxyHeaders.isUTF8Text(response.headers.first { $0.first == "content-type" }?.last)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.headHold) { [weak self] in self?.wake() }
    }

    /// - Throws: when the body's feed refuses the bytes, to stop the transfer: `CancellationError`
    ///   when the page's read went away (an abort, a cancelled body), `network_error` when the page
    ///   stopped reading and the bytes waiting reached the feed's bound.
    private func receive(data: Data) throws {
        let current = lock.withLock { () -> BridgeByteFeed? in
            if let feed { return feed }
            pending.append(data)
            return nil
        }
        guard let current else { return wake() }
        guard current.write(data) else {
            if current.readerLeft { throw CancellationError() }
            throw HybridError.network(.requestFailed("the page stopped reading the response body"))
        }
    }

    /// The next batch to send, waiting for one; `nil` once the request is over.
    func next() async -> [ProxyProgress]? {
        await withCheckedContinuation { continuation in
            let batch = lock.withLock { () -> [ProxyProgress]?? in
                if finished { return .some(nil) }
                if let batch = takeLocked() { return .some(batch) }
                waiter = continuation
                return nil
            }
            if let batch { continuation.resume(returning: batch) }
        }
    }

    /// Ends the stream and waits for the relay to hand over the batch it is sending.
    func close() async {
        finish()
        if let relay = lock.withLock({ relay }) { await relay.value }
    }

    /// Ends the stream after a failure or cancellation: the relay stops, and a feed the body went
    /// into fails (the page's stream errors).
    func abort() {
        finish()
        lock.withLock { feed }?.fail()
    }

    /// Ends the stream: the relay stops after the batch it is sending.
    func finish() {
        let waiting = lock.withLock { () -> CheckedContinuation<[ProxyProgress]?, Never>? in
            finished = true
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume(returning: nil)
    }

    /// The reply for `response` (whose body is what the proxy collected): the body bytes no
    /// report carried, and the whole response when its head never went out.
    func reply(_ response: ProxyResponse) -> ProxyResponse {
        lock.withLock {
            guard head != nil else { return response }
            if let feed {
                // Everything went into the feed (the transfer reported every byte).
                feed.write(response.bodyData ?? Data())
                feed.finish()
                var reply = response
                reply.setBody(Data())
                return reply
            }
            var reply = response
            reply.setBody(pending + (response.bodyData ?? Data()))
            pending = Data()
            return reply
        }
    }

    private func wake() {
        let (waiting, batch) = lock.withLock { () -> (CheckedContinuation<[ProxyProgress]?, Never>?, [ProxyProgress]?) in
            if relay == nil, let send, !finished, let batch = takeLocked() {
                // The first batch starts the relay, which sends it and then waits for the next.
                relay = Task { @MainActor [self] in
                    for report in batch { await send(report) }
                    while let next = await self.next() {
                        for report in next { await send(report) }
                    }
                }
                return (nil, nil)
            }
            guard let waiter, let batch = takeLocked() else { return (nil, nil) }
            self.waiter = nil
            return (waiter, batch)
        }
        if let waiting { waiting.resume(returning: batch) }
    }

    /// Takes what is ready: queued upload reports; the head once it has waited ``headHold``,
    /// with the body bytes so far; after it, the body bytes so far.
    private func takeLocked() -> [ProxyProgress]? {
        var batch = reports
        reports.removeAll()
        if let head, !headSent {
            if Date().timeIntervalSince(headAt) >= Self.headHold {
                headSent = true
                var report = ProxyProgress(phase: "head", loaded: 0, total: -1, head: head)
                if let (text, chunk, count) = takeBodyLocked() {
                    report.text = text
                    report.chunk = chunk
                    report.loaded = count
                }
                batch.append(report)
            }
        } else if headSent, let report = feedReportLocked() {
            batch.append(report)
        } else if headSent, let (text, chunk, count) = takeBodyLocked() {
            batch.append(ProxyProgress(phase: "data", loaded: count, total: -1, chunk: chunk, text: text))
        }
        return batch.isEmpty ? nil : batch
    }

    /// The `data` report that moves the rest of the body into a feed: once, when a feed can be
    /// opened and the body has reached ``feedThreshold`` bytes (those waiting go first into it).
    private func feedReportLocked() -> ProxyProgress? {
        guard feed == nil, let openFeed, !pending.isEmpty, received + Int64(pending.count) >= feedThreshold,
              let opened = openFeed() else { return nil }
        feed = opened
        opened.write(pending)
        received += Int64(pending.count)
        pending = Data()
        var report = ProxyProgress(phase: "data", loaded: received, total: -1)
        report.feed = opened.reference
        return report
    }

    /// The pending body bytes as text (up to the last whole character, when the type is UTF-8
    /// text and they are valid) or bytes; `nil` when there are none.
    private func takeBodyLocked() -> (text: String?, chunk: BridgeBytes?, loaded: Int64)? {
        guard !pending.isEmpty else { return nil }
        if textual {
            let end = Self.characterBoundary(pending)
            if end > 0, let text = String(data: pending.prefix(end), encoding: .utf8) {
                received += Int64(end)
                pending = Data(pending.dropFirst(end))
                return (text, nil, received)
            }
            if end == 0 && pending.count < 4 { return nil }
        }
        received += Int64(pending.count)
        defer { pending = Data() }
        return (nil, BridgeBytes(pending), received)
    }

    /// The length of `data` without a UTF-8 sequence cut off at its end.
    static func characterBoundary(_ data: Data) -> Int {
        var index = data.count
        var back = 0
        while index > 0 && back < 4 {
            let byte = data[data.startIndex + index - 1]
            if byte & 0xC0 != 0x80 {
                // A lead byte (or ASCII): is its sequence complete?
                let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                return back + 1 >= length ? data.count : index - 1
            }
            index -= 1
            back += 1
        }
        return data.count
    }
}
