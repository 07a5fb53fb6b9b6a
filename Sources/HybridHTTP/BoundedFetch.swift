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
/// is refused before the body is read) and to ``DownloadDeadlines``, kept in memory: the small
/// documents of packages and remote config. Each domain maps ``Failure`` to its own typed error.
package enum BoundedFetch {
    /// Why a bounded fetch (or any ``HTTPStream``) stopped.
    package enum Failure: Error {
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
    package static func get(_ request: URLRequest, limit: Int, deadlines: DownloadDeadlines,
                    transport: HTTPStream.Transport = .preferred) async throws -> (HTTPURLResponse, Data) {
        let sink = MemorySink(limit: limit)
        try await HTTPStream.get(request, refusingOver: limit, deadlines: deadlines, into: sink, transport: transport)
        guard let response = sink.response else { throw Failure.transport("no response") }
        return (response, sink.body)
    }
}

/// Keeps a body of at most `limit` bytes; the byte past it stops the transfer.
private final class MemorySink: HTTPStreamSink, @unchecked Sendable {
    package let limit: Int
    package private(set) var response: HTTPURLResponse?
    package private(set) var body = Data()

    package init(limit: Int) { self.limit = limit }

    package func received(response: HTTPURLResponse) throws {
        self.response = response
    }

    package func received(body bytes: UnsafeRawBufferPointer) throws {
        guard body.count + bytes.count <= limit else {
            body = Data()
            throw BoundedFetch.Failure.tooLarge(limit: limit, declared: nil)
        }
        body.append(contentsOf: bytes)
    }
}
