import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// The request proxy under a burst, natively: every request is answered exactly once, with its
/// own response, whatever the order the server answers in and whichever requests are cancelled.
///
/// The burst hits a *fresh* proxy every round, because the hang this guards against lived in the
/// first moments of a proxy's life: its `URLSession` was made lazily, so the first requests of a
/// burst, started on several threads at once, could each make one; task identifiers then collided
/// and one request's continuation was lost (the page waited forever).
@Suite("Request proxy concurrency")
struct RequestProxyConcurrencyTests {
    /// What one request ended as.
    enum Outcome: Equatable {
        case answered(query: String)
        case cancelled
        case failed(String)
    }

    @Test func aBurstOnAFreshProxyAnswersEveryRequestWithItsOwnResponse() async throws {
        let server = try LoopbackServer()
        TestRoutes.install(on: server)
        defer { server.stop() }
        let port = server.url("/").port ?? 0
        var random = SplitMix64(seed: 0x4879_6272_6964)
        for round in 0..<20 {
            let proxy = RequestProxy(policy: try ProxyPolicy(requests: ["http://127.0.0.1:\(port)/*"]), jar: nil)
            // 200 requests; the server answers each after 0–50 ms, so answers come out of order,
            // and every tenth is cancelled after 0–30 ms, mid-flight or before it started.
            let plan = (0..<200).map { index in
                (index: index, delay: Int.random(in: 0...50, using: &random),
                 cancelAfter: index % 10 == 3 ? Int.random(in: 0...30, using: &random) : nil)
            }
            let outcomes = try await withDeadline(seconds: 60, "round \(round): some requests never finished") {
                await withTaskGroup(of: (Int, Outcome).self) { group in
                    for item in plan {
                        let query = "round=\(round)&id=\(item.index)&delay=\(item.delay)"
                        let url = server.url("/echo?\(query)").absoluteString
                        let request = Task { () -> Outcome in
                            do {
                                let response = try await proxy.perform(ProxyRequest(url: url, method: item.index % 2 == 0 ? "GET" : "POST",
                                                                                    body: item.index % 2 == 0 ? nil : Data("body \(item.index)".utf8).base64EncodedString()))
                                let echo = try JSONDecoder().decode(EchoReply.self, from: response.bodyData ?? Data())
                                return .answered(query: echo.query ?? "")
                            } catch is CancellationError {
                                return .cancelled
                            } catch {
                                return .failed(String(describing: error))
                            }
                        }
                        if let cancelAfter = item.cancelAfter {
                            group.addTask {
                                try? await Task.sleep(for: .milliseconds(cancelAfter))
                                request.cancel()
                                return (item.index, await request.value)
                            }
                        } else {
                            group.addTask { (item.index, await request.value) }
                        }
                    }
                    var outcomes: [Int: Outcome] = [:]
                    for await (index, outcome) in group { outcomes[index] = outcome }
                    return outcomes
                }
            }
            #expect(outcomes.count == plan.count)
            for item in plan {
                let expected = "round=\(round)&id=\(item.index)&delay=\(item.delay)"
                switch outcomes[item.index] ?? .failed("no outcome") {
                case .answered(let query):
                    // Never another request's response.
                    #expect(query == expected)
                case .cancelled:
                    #expect(item.cancelAfter != nil, "request \(item.index) was cancelled without being asked to")
                case .failed(let message):
                    Issue.record("round \(round) request \(item.index) failed: \(message)")
                }
            }
        }
    }
}

/// Runs `body`, failing the test if it has not finished after `seconds`. The wait does not
/// depend on `body` honouring cancellation: a lost continuation cannot hang the suite.
private func withDeadline<T: Sendable>(seconds: Double, _ message: String,
                                       _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let settled = Locked(false)
    let worker = Task { try await body() }
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        @Sendable func settle(_ result: Result<T, any Error>) {
            guard settled.mutate({ done in defer { done = true }; return !done }) else { return }
            continuation.resume(with: result)
        }
        Task { settle(await worker.result) }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            worker.cancel()
            settle(.failure(DeadlineExceeded(message: message)))
        }
    }
}

/// A wait that did not finish in time.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
