import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How long one download may take: a whole-transfer deadline and a stall deadline (no byte for
/// that long, headers included). Used by the package updater and the remote config client.
public struct DownloadDeadlines: Sendable, Equatable {
    /// The longest a whole download may take, from the request to its last byte (seconds).
    public var overall: TimeInterval
    /// The longest a download may go without receiving a byte, headers included (seconds).
    public var stall: TimeInterval

    /// The defaults: 120 s for a whole document, 20 s without a byte. A pointer or manifest is a
    /// few kilobytes, so two minutes is generous even on a bad mobile link; 20 s of silence is
    /// longer than any healthy CDN pauses mid-response.
    public static let standard = DownloadDeadlines(overall: 120, stall: 20)

    /// - Parameters:
    ///   - overall: the longest a whole download may take (seconds).
    ///   - stall: the longest a download may go without a byte (seconds).
    public init(overall: TimeInterval, stall: TimeInterval) {
        self.overall = overall
        self.stall = stall
    }
}

/// One GET held to a size limit as the bytes arrive (a declared `Content-Length` over the limit
/// is refused before the body is read) and to ``DownloadDeadlines``. The one bounded-download
/// mechanism of HybridCore: each domain maps ``Failure`` to its own typed error.
enum BoundedFetch {
    /// Why a bounded fetch stopped.
    enum Failure: Error {
        /// The body exceeded `limit`, or declared `declared` bytes over it.
        case tooLarge(limit: Int, declared: Int64?)
        /// No byte arrived for `seconds`.
        case stalled(seconds: TimeInterval)
        /// The whole download took longer than `seconds`.
        case timedOut(seconds: TimeInterval)
        /// The transport failed otherwise.
        case transport(String)
    }

    /// GETs `request`, returning the response and at most `limit` body bytes.
    static func get(_ request: URLRequest, limit: Int, deadlines: DownloadDeadlines,
                    configuration: URLSessionConfiguration = .ephemeral) async throws -> (HTTPURLResponse, Data) {
        var request = request
        // URLSession's own timeout would end a stall as an untyped -1001 first; the watchdog owns it.
        request.timeoutInterval = max(deadlines.overall, deadlines.stall) + 30
        let transfer = BoundedTransfer(limit: limit, deadlines: deadlines)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration, delegate: transfer, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.start(task, continuation)
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// The delegate and watchdog of one ``BoundedFetch``; its state is touched under `lock`.
private final class BoundedTransfer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let limit: Int
    private let deadlines: DownloadDeadlines
    private let lock = NSLock()
    private var body = Data()
    private var response: HTTPURLResponse?
    private var failure: BoundedFetch.Failure?
    private var continuation: CheckedContinuation<(HTTPURLResponse, Data), any Error>?
    private var started = Date()
    private var lastByte = Date()
    private var timer: (any DispatchSourceTimer)?
    private weak var task: URLSessionTask?

    /// How often the watchdog looks (5 ms: at loopback speed a few MB arrive in that time).
    static let sizeTick: TimeInterval = 0.005

    init(limit: Int, deadlines: DownloadDeadlines) {
        self.limit = limit
        self.deadlines = deadlines
    }

    func start(_ task: URLSessionTask, _ continuation: CheckedContinuation<(HTTPURLResponse, Data), any Error>) {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        // Also the size watchdog: FoundationNetworking on Linux reads the socket ahead of the
        // delegate queue without back-pressure, so the bytes the task has received are checked
        // here too, off the delegate queue. It does not bound the backlog: against an endless
        // body on loopback the updater still peaked at 95-364 MB (81 MB idle); see docs.
        let tick = min(Self.sizeTick, max(0.02, min(deadlines.stall, deadlines.overall) / 10))
        timer.schedule(deadline: .now() + tick, repeating: tick)
        timer.setEventHandler { [weak self] in self?.check() }
        lock.withLock {
            self.task = task
            self.continuation = continuation
            self.started = Date()
            self.lastByte = Date()
            self.timer = timer
        }
        timer.resume()
        task.resume()
    }

    private func check() {
        let now = Date()
        let task: URLSessionTask? = lock.withLock {
            guard failure == nil, continuation != nil else { return nil }
            if now.timeIntervalSince(started) >= deadlines.overall {
                failure = .timedOut(seconds: deadlines.overall)
            } else if now.timeIntervalSince(lastByte) >= deadlines.stall {
                failure = .stalled(seconds: deadlines.stall)
            } else if let task = self.task, task.countOfBytesReceived > Int64(limit) {
                failure = .tooLarge(limit: limit, declared: nil)
                body = Data()
            } else {
                return nil
            }
            return self.task
        }
        task?.cancel()
    }

    /// Records the first failure and cancels the task; the completion callback resumes.
    private func fail(_ reason: BoundedFetch.Failure, _ task: URLSessionTask) {
        lock.withLock { if failure == nil { failure = reason } }
        task.cancel()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let declared = response.expectedContentLength
        if declared > Int64(limit) {
            lock.withLock { if failure == nil { failure = .tooLarge(limit: limit, declared: declared) } }
            completionHandler(.cancel)
            return
        }
        lock.withLock {
            self.response = response as? HTTPURLResponse
            lastByte = Date()
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over: Bool = lock.withLock {
            guard failure == nil else { return true }
            lastByte = Date()
            guard body.count + data.count <= limit else {
                failure = .tooLarge(limit: limit, declared: nil)
                body = Data()
                return true
            }
            body.append(data)
            return false
        }
        if over { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result): (CheckedContinuation<(HTTPURLResponse, Data), any Error>?, Result<(HTTPURLResponse, Data), any Error>) = lock.withLock {
            timer?.cancel()
            timer = nil
            let continuation = self.continuation
            self.continuation = nil
            if let failure { return (continuation, .failure(failure)) }
            if let error {
                let nsError = error as NSError
                if nsError.domain == NSURLErrorDomain && nsError.code == NSURLErrorTimedOut {
                    return (continuation, .failure(BoundedFetch.Failure.stalled(seconds: deadlines.stall)))
                }
                return (continuation, .failure(BoundedFetch.Failure.transport(error.localizedDescription)))
            }
            guard let response else { return (continuation, .failure(BoundedFetch.Failure.transport("no response"))) }
            return (continuation, .success((response, body)))
        }
        continuation?.resume(with: result)
    }
}
