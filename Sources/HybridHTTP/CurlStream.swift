#if canImport(CHybridCurl)
import CHybridCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridBase

/// ``HTTPStream`` on libcurl (Linux): one blocking transfer on a thread of its own, whose
/// callbacks run in libcurl's read loop, so a sink that throws stops the body before another
/// read. The C side (CHybridCurl) only translates; limits, deadlines and errors are decided here.
package enum CurlStream {
    package static func get(_ request: URLRequest, refusingOver limit: Int?, deadlines: DownloadDeadlines,
                    into sink: any HTTPStreamSink) async throws {
        guard let url = request.url else { throw HTTPStream.Failure.transport("no URL") }
        let transfer = CurlTransfer(url: url, sink: sink, deadlines: deadlines)
        let lines = (request.allHTTPHeaderFields ?? [:]).map { "\($0.key): \($0.value)" }
        try await CurlThread.run("HybridKit download", cancel: { transfer.cancel() }) {
            try transfer.perform(headers: lines, refusingOver: limit)
        }
    }
}

/// The state of one curl transfer. Everything but `cancelled` is touched only on its thread.
private final class CurlTransfer: @unchecked Sendable {
    package let url: URL
    private let sink: any HTTPStreamSink
    private var clock: StreamClock
    private let cancelled = LockedState(false)
    private var headers = ResponseHeaderLines()
    private var stop: (any Error)?

    package init(url: URL, sink: any HTTPStreamSink, deadlines: DownloadDeadlines) {
        self.url = url
        self.sink = sink
        self.clock = StreamClock(deadlines)
    }

    package func cancel() { cancelled.withLock { $0 = true } }

    package func perform(headers lines: [String], refusingOver limit: Int?) throws {
        let deadlines = clock.deadlines
        var callbacks = hk_curl_callbacks(
            context: Unmanaged.passUnretained(self).toOpaque(),
            header: { context, line, length in
                CurlTransfer.from(context).header(line, length) ? 1 : 0
            },
            response: { context, status, url in
                CurlTransfer.from(context).response(Int(status), url) ? 1 : 0
            },
            body: { context, bytes, length in
                CurlTransfer.from(context).body(UnsafeRawBufferPointer(start: bytes, count: length)) ? 1 : 0
            },
            tick: { context in
                CurlTransfer.from(context).tick() ? 1 : 0
            },
            read: nil, sent: nil)
        var result = hk_curl_result()
        let copies = lines.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let code: Int32 = copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { pointers in
            // The backstops sit past our own deadlines, which end the transfer first with a typed reason.
            hk_curl_get(url.absoluteString, pointers.baseAddress, pointers.count, Int64(limit ?? 0),
                        CurlThread.milliseconds(deadlines.stall + 5), CurlThread.milliseconds(deadlines.overall + 5),
                        CurlThread.milliseconds(clock.tick), &callbacks, &result)
        }
        if let stop { throw stop }
        switch code {
        case Int32(HK_CURL_OK):
            return
        case Int32(HK_CURL_FILESIZE_EXCEEDED):
            // libcurl may refuse before it records the length: then it is the header we saw.
            throw HTTPStream.Failure.tooLarge(limit: limit ?? 0, declared: result.declared >= 0 ? result.declared : headers.contentLength)
        case Int32(HK_CURL_OPERATION_TIMEDOUT):
            throw clock.expired() ?? .stalled(seconds: deadlines.stall)
        default:
            throw HTTPStream.Failure.transport(CurlThread.message(result))
        }
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> CurlTransfer {
        Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
    }

    /// Records why the transfer stops; false tells libcurl to stop.
    private func halt(_ error: any Error) -> Bool {
        if stop == nil { stop = error }
        return false
    }

    private func header(_ line: UnsafePointer<CChar>?, _ length: Int) -> Bool {
        guard let line else { return true }
        if let expired = clock.expired() { return halt(expired) }
        clock.received()
        headers.add(String(decoding: UnsafeRawBufferPointer(start: line, count: length), as: UTF8.self))
        return true
    }

    private func response(_ status: Int, _ effective: UnsafePointer<CChar>?) -> Bool {
        let final = effective.flatMap { URL(string: String(cString: $0)) } ?? url
        guard let response = HTTPURLResponse(url: final, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers.dictionary) else {
            return halt(HTTPStream.Failure.transport("an unreadable response"))
        }
        do { try sink.received(response: response) } catch { return halt(error) }
        return true
    }

    private func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let expired = clock.expired() { return halt(expired) }
        clock.received()
        do { try sink.received(body: bytes) } catch { return halt(error) }
        return true
    }

    private func tick() -> Bool {
        if cancelled.withLock({ $0 }) { return halt(CancellationError()) }
        if let expired = clock.expired() { return halt(expired) }
        return true
    }
}
#endif
