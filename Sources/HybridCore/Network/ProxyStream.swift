import Foundation

/// Carries a proxied request's progress to the page in order, coalescing what piles up.
///
/// The transfer reports on URLSession's queue; the relay (``ProxyModule``) sends on the main
/// actor, one bridge message per report. What arrives while a message is on its way waits and
/// goes in the next batch: body chunks join into one `data` report, so a fast response costs
/// few messages, and a response that is over before the relay gets to it costs none at all —
/// the reply then carries its head and whole body, as an unstreamed one would. Nothing is
/// dropped but upload reports beyond the newest 64.
final class ProxyStream: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [ProxyProgress] = []
    private var pending = Data()
    private var received: Int64 = 0
    private var headQueued = false
    private var headSent = false
    private var finished = false
    private var waiter: CheckedContinuation<[ProxyProgress]?, Never>?

    /// What the proxy reports into this stream.
    var events: RequestProxy.Events {
        RequestProxy.Events(upload: { [weak self] in self?.upload($0) },
                            head: { [weak self] in self?.head($0) },
                            data: { [weak self] in self?.data($0) })
    }

    /// Upload progress (kept in order, the newest 64).
    func upload(_ report: ProxyProgress) {
        lock.withLock {
            guard !finished else { return }
            reports.append(report)
            if reports.count > 64 { reports.removeFirst(reports.count - 64) }
        }
        wake()
    }

    private func head(_ head: ProxyResponse) {
        lock.withLock {
            guard !finished else { return }
            reports.append(ProxyProgress(phase: "head", loaded: 0, total: -1, head: head))
            headQueued = true
        }
        wake()
    }

    private func data(_ data: Data) {
        lock.withLock { pending.append(data) }
        wake()
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
    /// batch carried, and the whole response when its head never went out.
    func reply(_ response: ProxyResponse) -> ProxyResponse {
        lock.withLock {
            guard headQueued else { return response }
            var reply = response
            if !headSent || !pending.isEmpty || !response.body.isEmpty || response.text != nil {
                reply.setBody(pending + (response.bodyData ?? Data()))
            }
            pending = Data()
            return reply
        }
    }

    private func wake() {
        let (waiting, batch) = lock.withLock { () -> (CheckedContinuation<[ProxyProgress]?, Never>?, [ProxyProgress]?) in
            guard let waiter, let batch = takeLocked() else { return (nil, nil) }
            self.waiter = nil
            return (waiter, batch)
        }
        if let waiting { waiting.resume(returning: batch) }
    }

    /// Takes what is ready: queued reports, then (once the head is out) the body bytes so far.
    private func takeLocked() -> [ProxyProgress]? {
        var batch = reports
        reports.removeAll()
        if headQueued && !headSent && batch.contains(where: { $0.phase == "head" }) { headSent = true }
        if headSent && !pending.isEmpty {
            received += Int64(pending.count)
            batch.append(ProxyProgress(phase: "data", loaded: received, total: -1, chunk: pending.base64EncodedString()))
            pending = Data()
        }
        return batch.isEmpty ? nil : batch
    }
}
