#if os(Linux)
import Foundation
import HybridBase
import HybridHTTP

/// ``ProxyTransport`` on libcurl (``CurlExchange``), the request proxy's transport on Linux.
///
/// Why not `URLSession` here: swift-corelibs-foundation's `HTTPURLResponse` merges header names
/// that differ only in case and keeps one value (`foo-TEST: 1` + `FOO-test: 2, 3` read `2, 3`),
/// where the page must read `1, 2, 3` (docs/request-proxy.md, "Header fidelity"); libcurl's header
/// callback gives every line as sent. Its callbacks also run in libcurl's read loop, so a body is
/// handed on as it arrives, without FoundationNetworking's queue in between, and a streamed request
/// body is read on the hop's own thread (no session's queue blocked while the page answers). Each
/// hop runs on a thread of its own; connections are kept alive across hops and requests
/// (``CurlConnections``).
final class ProxyCurlTransfer: ProxyTransport {
    private let connections = CurlConnections()

    func run(_ hop: ProxyHop, limit: Int, progress: (@Sendable (ProxyProgress) -> Void)?, decide: ProxyDecision?,
             stop: (@Sendable () -> Void)?) async throws -> (HTTPHead, Data) {
        let state = HopState(limit: limit, progress: progress, decide: decide)
        let body: CurlExchange.Body
        switch hop.body {
        case .none: body = .none
        case .bytes(let data): body = .bytes(data)
        case .stream(let stream, let size):
            stream.open()
            body = .stream(size: size) { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                return stream.read(base.assumingMemoryBound(to: UInt8.self), maxLength: buffer.count)
            }
        }
        let request = CurlExchange.Request(url: hop.url, method: hop.method, headers: hop.headers, body: body, limit: limit,
                                           deadline: hop.deadline, connections: connections)
        let handlers = CurlExchange.Handlers(
            sent: progress.map { report in { sent, total in report(ProxyProgress(phase: "upload", loaded: sent, total: total)) } },
            head: { try state.received(head: $0) },
            body: { try state.received(body: $0) })
        do {
            // A streamed body's read may be waiting for the page: it is woken first, so the
            // exchange sees the cancellation at once.
            try await withTaskCancellationHandler {
                try await CurlExchange.perform(request, handlers: handlers)
            } onCancel: {
                stop?()
            }
        } catch let failure as CurlExchange.Failure {
            switch failure {
            case .connectionLost(let message): throw ProxyConnectionLost(message: message)
            case .timedOut: throw HybridError.network(.timedOut(milliseconds: hop.timeoutMilliseconds))
            case .tooLarge(let declared):
                throw HybridError.network(.payloadTooLarge(size: Int(clamping: declared ?? Int64(limit) + 1), limit: limit))
            case .transport(let message): throw HybridError.network(.requestFailed(message))
            }
        }
        guard let head = state.head else { throw HybridError.network(.requestFailed("no HTTP response")) }
        return (head, state.data)
    }

    /// Nothing to stop: each exchange ends with the task that awaits it (cancelling that task
    /// cancels the exchange), and the connections go with the last exchange that holds them.
    func invalidate() {}
}

/// What one hop received. Touched only on its exchange's thread, then read once it is over.
private final class HopState: @unchecked Sendable {
    private let limit: Int
    private let progress: (@Sendable (ProxyProgress) -> Void)?
    private let decide: ProxyDecision?
    private var stream: (@Sendable (Data) throws -> Void)?
    private var received = 0
    private var reported = 0
    private var declared: Int64 = -1
    private(set) var head: HTTPHead?
    private(set) var data = Data()

    init(limit: Int, progress: (@Sendable (ProxyProgress) -> Void)?, decide: ProxyDecision?) {
        self.limit = limit
        self.progress = progress
        self.decide = decide
    }

    func received(head: HTTPHead) throws {
        self.head = head
        declared = head.declaredLength ?? -1
        if declared > Int64(limit) { throw HybridError.network(.payloadTooLarge(size: Int(clamping: declared), limit: limit)) }
        switch decide?(head) ?? .collect {
        case .collect: break
        case .stream(let sink): stream = sink
        case .fail(let reason): throw HybridError.network(reason)
        }
    }

    func received(body bytes: UnsafeRawBufferPointer) throws {
        received += bytes.count
        if received > limit { throw HybridError.network(.payloadTooLarge(size: received, limit: limit)) }
        if let stream { return try stream(Data(bytes)) }
        data.append(contentsOf: bytes)
        // One report per 64 KB keeps a large download from flooding the bridge.
        if let progress, data.count - reported >= 65_536 {
            reported = data.count
            progress(ProxyProgress(phase: "download", loaded: Int64(data.count), total: declared))
        }
    }
}
#endif
