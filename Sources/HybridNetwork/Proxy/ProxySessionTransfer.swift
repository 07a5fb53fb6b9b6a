import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridBase
import HybridHTTP

/// ``ProxyTransport`` on one `URLSession` (Apple platforms, where it is the system's HTTP stack;
/// Linux uses ``ProxyCurlTransfer``), and the delegate that runs its single-hop transfers.
///
/// The delegate declines every redirect (`completionHandler(nil)`), so a 3xx comes back as the
/// hop's response. Bodies are counted as they arrive, so an oversized response is cut off
/// instead of filling memory. `HTTPURLResponse` gives its headers as a dictionary: repeated
/// fields come joined, in no order the page could rely on (``HTTPHead/init(_:)``).
final class ProxySessionTransfer: NSObject, ProxyTransport, URLSessionDataDelegate, @unchecked Sendable {
    private struct Pending {
        var continuation: CheckedContinuation<(HTTPHead, Data), any Error>
        var data = Data()
        var received = 0
        var limit: Int
        var progress: (@Sendable (ProxyProgress) -> Void)?
        var decide: ProxyDecision?
        var stream: (@Sendable (Data) throws -> Void)?
        var reportedDownload = 0
        var failure: NetworkFailure?
        var stop: (@Sendable () -> Void)?
    }

    private let lock = NSLock()
    private var pending: [Int: Pending] = [:]
    /// Made once, in `init`, before the transfer is shared. It used to be a `lazy var`, which is
    /// not thread-safe: the first requests of a burst, started on several threads at once, could
    /// each make a session of their own. Task identifiers count from 1 in every session, so two
    /// of them collided in `pending`: one continuation was overwritten and never resumed (the page
    /// waited forever) and its twin could be handed the other's response.
    private var session: URLSession!

    override init() {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        // The proxy owns cookies (the app's CookieJar) and caching decisions.
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = 8
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    func run(_ hop: ProxyHop, limit: Int, progress: (@Sendable (ProxyProgress) -> Void)?, decide: ProxyDecision?,
             stop: (@Sendable () -> Void)?) async throws -> (HTTPHead, Data) {
        let timeout = hop.deadline.timeIntervalSinceNow
        var request = URLRequest(url: hop.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: max(timeout, 0.001))
        request.httpMethod = hop.method
        for (name, value) in hop.headers { request.addValue(value, forHTTPHeaderField: name) }
        switch hop.body {
        case .none: break
        case .bytes(let data): request.httpBody = data
        case .stream(let stream, let size):
            request.httpBodyStream = stream
            request.setValue(String(size), forHTTPHeaderField: "Content-Length")
        }
        let task = session.dataTask(with: request)
        let id = task.taskIdentifier
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                lock.withLock {
                    precondition(pending[id] == nil, "ProxySessionTransfer: task identifier \(id) is already pending")
                    pending[id] = Pending(continuation: continuation, limit: limit, progress: progress, decide: decide, stop: stop)
                }
                // URLRequest's timeout is an idle timeout; the page's is for the whole request.
                DispatchQueue.global().asyncAfter(deadline: .now() + max(timeout, 0)) { [weak self, weak task] in
                    guard let self, let task else { return }
                    self.fail(id, task: task, .timedOut(milliseconds: hop.timeoutMilliseconds))
                }
                if Task.isCancelled { task.cancel() } else { task.resume() }
            }
        } onCancel: {
            Self.cancel(task, waking: stop)
        }
    }

    /// Marks a transfer failed for `reason` and stops it; its completion then reports the reason.
    private func fail(_ id: Int, task: URLSessionTask, _ reason: NetworkFailure) {
        let (stops, wake) = lock.withLock { () -> (Bool, (@Sendable () -> Void)?) in
            guard pending[id] != nil, pending[id]?.failure == nil else { return (false, nil) }
            pending[id]?.failure = reason
            return (true, pending[id]?.stop)
        }
        if stops { Self.cancel(task, waking: wake) }
    }

    /// Cancels `task`. With a body stream (`wake`), its reads are woken first and the cancel runs
    /// on a thread of its own: Foundation on Linux waits for the session's queue there, and the
    /// caller is often the main thread, which the page's answers need (seen: a stall of the whole
    /// test process until the request's deadline when two proxy suites ran at once).
    private static func cancel(_ task: URLSessionTask, waking wake: (@Sendable () -> Void)?) {
        guard let wake else { return task.cancel() }
        wake()
        Thread.detachNewThread { task.cancel() }
    }

    /// Cancels what is left and lets the session go, on a thread of its own: Foundation on Linux
    /// waits there for the session's queue, which a body stream's read may hold while it waits for
    /// the page. Waiting on the main thread (which the page's answer needs) or on a thread of the
    /// shared pools (which Swift concurrency and the proxy's timers need) would stall them too.
    func invalidate() {
        let session = session!
        Thread.detachNewThread { session.invalidateAndCancel() }
    }

    // MARK: URLSession delegate

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        let progress = lock.withLock { pending[task.taskIdentifier]?.progress }
        // A body stream's size is unknown to Foundation (it reports 0): ours is its Content-Length.
        let declared = task.originalRequest?.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
        let total = totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : declared ?? totalBytesExpectedToSend
        progress?(ProxyProgress(phase: "upload", loaded: totalBytesSent, total: total))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let id = dataTask.taskIdentifier
        let (limit, decide) = lock.withLock { (pending[id]?.limit ?? 0, pending[id]?.decide) }
        if response.expectedContentLength > Int64(limit) {
            fail(id, task: dataTask, .payloadTooLarge(size: Int(response.expectedContentLength), limit: limit))
            completionHandler(.cancel)
            return
        }
        if let decide, let http = response as? HTTPURLResponse {
            switch decide(HTTPHead(http)) {
            case .collect: break
            case .stream(let sink): lock.withLock { pending[id]?.stream = sink }
            case .fail(let reason):
                fail(id, task: dataTask, reason)
                completionHandler(.cancel)
                return
            }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let (report, over, sink) = lock.withLock { () -> ((@Sendable (ProxyProgress) -> Void, ProxyProgress)?, (Int, Int)?, (@Sendable (Data) throws -> Void)?) in
            guard var entry = pending[id], entry.failure == nil else { return (nil, nil, nil) }
            entry.received += data.count
            if entry.received > entry.limit {
                pending[id] = entry
                return (nil, (entry.received, entry.limit), nil)
            }
            if let stream = entry.stream {
                pending[id] = entry
                return (nil, nil, stream)
            }
            entry.data.append(data)
            var report: ((@Sendable (ProxyProgress) -> Void, ProxyProgress))?
            // One report per 64 KB keeps a large download from flooding the bridge.
            if let progress = entry.progress, entry.data.count - entry.reportedDownload >= 65_536 {
                entry.reportedDownload = entry.data.count
                let total = dataTask.response?.expectedContentLength ?? -1
                report = (progress, ProxyProgress(phase: "download", loaded: Int64(entry.data.count), total: total))
            }
            pending[id] = entry
            return (report, nil, nil)
        }
        if let (size, limit) = over { fail(id, task: dataTask, .payloadTooLarge(size: size, limit: limit)) }
        if let (progress, value) = report { progress(value) }
        do {
            try sink?(data)
        } catch HybridError.network(let reason) {
            fail(id, task: dataTask, reason)
        } catch {
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = lock.withLock({ pending.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = entry.failure {
            entry.continuation.resume(throwing: HybridError.network(failure))
        } else if let error {
            let nsError = error as NSError
            if nsError.code == NSURLErrorCancelled {
                entry.continuation.resume(throwing: CancellationError())
            } else if nsError.code == NSURLErrorNetworkConnectionLost && task.response == nil {
                entry.continuation.resume(throwing: ProxyConnectionLost(message: nsError.localizedDescription))
            } else if nsError.code == NSURLErrorTimedOut {
                entry.continuation.resume(throwing: HybridError.network(.timedOut(milliseconds: Int(task.originalRequest?.timeoutInterval ?? 0) * 1000)))
            } else {
                entry.continuation.resume(throwing: HybridError.network(.requestFailed(nsError.localizedDescription)))
            }
        } else if let response = task.response as? HTTPURLResponse {
            entry.continuation.resume(returning: (HTTPHead(response), entry.data))
        } else {
            entry.continuation.resume(throwing: HybridError.network(.requestFailed("no HTTP response")))
        }
    }
}

extension HTTPHead {
    /// The head of a `URLSession` response: its dictionary's fields, ordered by name (the
    /// dictionary has no order of its own, and this one does not change from run to run).
    init(_ response: HTTPURLResponse) {
        let fields = response.allHeaderFields.compactMap { key, value -> (name: String, value: String)? in
            guard let name = key as? String, let value = value as? String else { return nil }
            return (name, value)
        }
        self.init(status: response.statusCode, url: response.url ?? URL(fileURLWithPath: "/"),
                  fields: fields.sorted { $0.name < $1.name })
    }
}
