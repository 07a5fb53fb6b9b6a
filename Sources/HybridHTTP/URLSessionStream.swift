import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridBase

/// ``HTTPStream`` on `URLSession` with a data delegate (Apple platforms; on Linux the tests run
/// it beside libcurl). A watchdog on a timer owns the deadlines, since URLSession's own timeout
/// would end a stall as an untyped -1001 first.
package enum URLSessionStream {
    package static func get(_ request: URLRequest, refusingOver limit: Int?, deadlines: DownloadDeadlines,
                    into sink: any HTTPStreamSink) async throws {
        var request = request
        request.timeoutInterval = max(deadlines.overall, deadlines.stall) + 30
        let transfer = SessionTransfer(limit: limit, sink: sink, deadlines: deadlines)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration, delegate: transfer, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.start(task, continuation)
            }
        } onCancel: {
            transfer.fail(CancellationError(), task)
        }
    }
}

/// The delegate and watchdog of one ``URLSessionStream``; its state is touched under `state`'s lock.
private final class SessionTransfer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct State {
        package var clock: StreamClock
        package var stop: (any Error)?
        package var continuation: CheckedContinuation<Void, any Error>?
        package var timer: (any DispatchSourceTimer)?
    }
    private let limit: Int?
    private let sink: any HTTPStreamSink
    private let state: LockedState<State>

    package init(limit: Int?, sink: any HTTPStreamSink, deadlines: DownloadDeadlines) {
        self.limit = limit
        self.sink = sink
        self.state = LockedState(State(clock: StreamClock(deadlines)))
    }

    package func start(_ task: URLSessionTask, _ continuation: CheckedContinuation<Void, any Error>) {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        let tick = state.withLock { $0.clock.tick }
        timer.schedule(deadline: .now() + tick, repeating: tick)
        timer.setEventHandler { [weak self, weak task] in
            guard let self, let task, let expired = self.state.withLock({ $0.clock.expired() }) else { return }
            self.fail(expired, task)
        }
        state.withLock {
            $0.continuation = continuation
            $0.clock = StreamClock($0.clock.deadlines)
            $0.timer = timer
        }
        timer.resume()
        task.resume()
    }

    /// Records the first reason to stop and cancels the task; the completion callback resumes.
    package func fail(_ reason: any Error, _ task: URLSessionTask) {
        state.withLock { if $0.stop == nil { $0.stop = reason } }
        task.cancel()
    }

    private var stopped: Bool { state.withLock { $0.stop != nil } }

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let declared = response.expectedContentLength
        if let limit, declared > Int64(limit) {
            fail(HTTPStream.Failure.tooLarge(limit: limit, declared: declared), dataTask)
            completionHandler(.cancel)
            return
        }
        state.withLock { $0.clock.received() }
        do {
            guard let http = response as? HTTPURLResponse else { throw HTTPStream.Failure.transport("not an HTTP response") }
            try sink.received(response: http)
            completionHandler(.allow)
        } catch {
            fail(error, dataTask)
            completionHandler(.cancel)
        }
    }

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard !stopped else { return }
        state.withLock { $0.clock.received() }
        do {
            try data.withUnsafeBytes { try sink.received(body: $0) }
        } catch {
            fail(error, dataTask)
        }
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, stop, clock): (CheckedContinuation<Void, any Error>?, (any Error)?, StreamClock) = state.withLock { state in
            state.timer?.cancel()
            state.timer = nil
            defer { state.continuation = nil }
            return (state.continuation, state.stop, state.clock)
        }
        let result: Result<Void, any Error>
        if let stop {
            result = .failure(stop)
        } else if let error {
            let nsError = error as NSError
            if nsError.domain == NSURLErrorDomain && nsError.code == NSURLErrorTimedOut {
                result = .failure(HTTPStream.Failure.stalled(seconds: clock.deadlines.stall))
            } else {
                result = .failure(HTTPStream.Failure.transport(error.localizedDescription))
            }
        } else {
            result = .success(())
        }
        continuation?.resume(with: result)
    }
}
