import Foundation
import HybridBase
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Takes one streamed GET as it arrives: the final response once, then its body piece by piece,
/// synchronously on the transfer's thread. Throwing stops the transfer before another byte is
/// read where the transport allows it (libcurl), and the error is what ``HTTPStream/get`` throws.
package protocol HTTPStreamSink: AnyObject {
    /// The final response (after redirects), before its first body byte.
    func received(response: HTTPURLResponse) throws
    /// The next piece of the body; valid only during the call.
    func received(body: UnsafeRawBufferPointer) throws
}

/// The one way HybridCore downloads: a GET streamed into an ``HTTPStreamSink``, held to
/// ``DownloadDeadlines`` (overall and stall, headers included), with a declared `Content-Length`
/// over a limit refused before the body is read. ``BoundedFetch`` (documents in memory) and the
/// package blobs (to disk) are sinks.
package enum HTTPStream {
    /// How the bytes move.
    package enum Transport: Sendable, CaseIterable {
        /// libcurl's multi interface, read by the calling code's own loop (Linux): the sink is
        /// called from the read loop, so memory is bounded by what the sink keeps.
        case curl
        /// `URLSession` with a data delegate (Apple platforms, where it is the system's HTTP
        /// stack). FoundationNetworking on Linux queues every read to the delegate without
        /// back-pressure, so there a limit stops the body only after a backlog has built up.
        case urlSession

        /// The transport of this platform.
        package static var preferred: Transport {
            #if canImport(CHybridCurl)
            .curl
            #else
            .urlSession
            #endif
        }

        /// The transports built on this platform (what the tests run).
        package static var allCases: [Transport] {
            #if canImport(CHybridCurl)
            [.curl, .urlSession]
            #else
            [.urlSession]
            #endif
        }
    }

    /// Why a stream stopped, when the sink did not stop it.
    package typealias Failure = BoundedFetch.Failure

    /// GETs `request` into `sink`. A declared body over `refusingOver` bytes fails with
    /// ``BoundedFetch/Failure/tooLarge(limit:declared:)`` before it is read.
    /// - Throws: a ``Failure``, what the sink threw, or `CancellationError`.
    package static func get(_ request: URLRequest, refusingOver limit: Int?, deadlines: DownloadDeadlines,
                    into sink: any HTTPStreamSink, transport: Transport = .preferred) async throws {
        switch transport {
        case .curl:
            #if canImport(CHybridCurl)
            try await CurlStream.get(request, refusingOver: limit, deadlines: deadlines, into: sink)
            #else
            try await URLSessionStream.get(request, refusingOver: limit, deadlines: deadlines, into: sink)
            #endif
        case .urlSession:
            try await URLSessionStream.get(request, refusingOver: limit, deadlines: deadlines, into: sink)
        }
    }
}

/// The deadlines of one stream, checked by its transport on every tick and every byte.
package struct StreamClock {
    package let deadlines: DownloadDeadlines
    package let started = Date()
    package private(set) var lastByte = Date()

    package init(_ deadlines: DownloadDeadlines) { self.deadlines = deadlines }

    /// Bytes arrived now.
    package mutating func received() { lastByte = Date() }

    /// The deadline passed, if one has.
    package func expired(at now: Date = Date()) -> HTTPStream.Failure? {
        if now.timeIntervalSince(started) >= deadlines.overall { return .timedOut(seconds: deadlines.overall) }
        if now.timeIntervalSince(lastByte) >= deadlines.stall { return .stalled(seconds: deadlines.stall) }
        return nil
    }

    /// How often to look: a tenth of the shorter deadline, between 5 ms and 250 ms.
    package var tick: TimeInterval { min(0.25, max(0.005, min(deadlines.stall, deadlines.overall) / 10)) }
}

/// A response head as sent: status, final URL, header fields in order with their own spelling.
package struct HTTPHead: Sendable {
    /// The status code.
    package var status: Int
    /// The URL it answers.
    package var url: URL
    /// The fields, in order, names as sent, values trimmed.
    package var fields: [(name: String, value: String)]

    /// A head.
    package init(status: Int, url: URL, fields: [(name: String, value: String)]) {
        self.status = status
        self.url = url
        self.fields = fields
    }

    /// The first value of field `name` (case-insensitive).
    package func value(_ name: String) -> String? {
        fields.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// Every value of field `name` (case-insensitive), in order.
    package func values(_ name: String) -> [String] {
        fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }

    /// The declared body length, when `Content-Length` is all digits.
    package var declaredLength: Int64? {
        guard let text = value("Content-Length"), !text.isEmpty, text.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return Int64(text)
    }
}

/// The header lines of the response being read, handed over one at a time (those of redirects
/// and interim responses included, each starting with its status line): the last response's
/// fields. A line without a name, or without a colon, is not a field.
package struct ResponseHeaderLines {
    /// No lines yet.
    package init() {}
    /// The last response's fields, in order, names as sent, values trimmed.
    package private(set) var fields: [(name: String, value: String)] = []

    /// Takes one raw line (its line end included or not).
    package mutating func add(_ line: String) {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("HTTP/") {
            fields = []
            return
        }
        // The first colon scalar, not Character: a colon followed by a combining mark is one
        // Character (`:` + U+0DDA), which a Character search would step over into the name.
        let scalars = text.unicodeScalars
        guard let colon = scalars.firstIndex(of: ":") else { return }
        let name = String(scalars[..<colon]).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(where: \.isWhitespace) else { return }
        fields.append((name, String(scalars[scalars.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
    }

    /// The fields as one dictionary, values of one name (as sent) joined with ", ".
    package var dictionary: [String: String] {
        var merged: [String: String] = [:]
        for (name, value) in fields { merged[name] = merged[name].map { "\($0), \(value)" } ?? value }
        return merged
    }

    /// The declared `Content-Length`: the last one, when it is all digits.
    package var contentLength: Int64? {
        guard let value = fields.last(where: { $0.name.lowercased() == "content-length" })?.value,
              !value.isEmpty, value.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return Int64(value)
    }
}
