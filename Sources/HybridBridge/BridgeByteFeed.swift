import Foundation

/// Bytes a module streams to the page through the byte channel as they arrive: the page reads them
/// with one request, as a `ReadableStream`, instead of one request (or one base64 message) per chunk.
///
/// A module asks its call's context for one (``BridgeCallContext/openByteFeed()``), names it in a
/// reply or progress report (``reference``, `{"$feed": token}` on the wire: the page runtime turns it
/// into the body stream of its request to the channel), then ``write(_:)``s and ``finish()``es it,
/// or ``fail()``s it (the page's stream errors). The page takes a feed once, like any channel entry;
/// one it never takes expires with the store's other entries. Bytes written before the page reads
/// wait here, at most the store's ``BridgeByteStore/Limits/maxTotalBytes``: a write past that (a page
/// that does not read) is refused and fails the feed, so an endless body cannot grow without bound.
public final class BridgeByteFeed: @unchecked Sendable {
    /// How a feed ended, or that it goes on.
    package enum End: Equatable { case open, finished, failed }

    private struct State {
        var chunks: [Data] = []
        var buffered = 0
        var end = End.open
        /// The reader stopped reading (its connection closed, or the page cancelled).
        var cancelled = false

        /// Drops the bytes waiting for the reader.
        mutating func drop() {
            chunks = []
            buffered = 0
        }
    }

    /// The token the page reads the feed under.
    public let token: String
    /// The bytes that may wait for the reader at once.
    let limit: Int
    /// Guards `state` and wakes the reader (`@unchecked Sendable`: `state` is only touched under it).
    private let condition = NSCondition()
    private var state = State()

    init(token: String, limit: Int) {
        self.token = token
        self.limit = limit
    }

    /// What a reply or progress report carries to name this feed (`{"$feed": token}`).
    public var reference: BridgeByteReference { BridgeByteReference(.feed, token: token) }

    /// Queues `data` for the page.
    /// - Returns: `false` when the feed no longer takes bytes: it ended, its reader went away, or
    ///   the bytes waiting would exceed the limit (the feed then fails): stop producing.
    @discardableResult
    public func write(_ data: Data) -> Bool {
        guard !data.isEmpty else { return isOpen }
        return change { state in
            guard state.end == .open, !state.cancelled else { return false }
            guard state.buffered + data.count <= limit else {
                state.end = .failed
                state.drop()
                return false
            }
            state.chunks.append(data)
            state.buffered += data.count
            return true
        }
    }

    /// Ends the body: the page's stream closes once it has read what was written.
    public func finish() { end(.finished) }

    /// Aborts the body: the page's stream errors (bytes not yet read are dropped).
    public func fail() { end(.failed) }

    /// Whether the feed still takes bytes.
    public var isOpen: Bool { condition.withLock { state.end == .open && !state.cancelled } }

    /// Whether the feed's reader went away (its request ended: an abort, a cancelled stream) or it
    /// expired unread, rather than the feed ending or overflowing.
    public var readerLeft: Bool { condition.withLock { state.cancelled } }

    /// The reader is gone: later writes are refused and what waits is dropped.
    package func cancel() {
        change { state in
            state.cancelled = true
            state.drop()
        }
    }

    private func end(_ end: End) {
        change { state in
            guard state.end == .open else { return }
            state.end = end
            if end == .failed { state.drop() }
        }
    }

    /// Changes the state under the lock and wakes the reader.
    @discardableResult
    private func change<T>(_ body: (inout State) -> T) -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return body(&state)
    }

    /// The bytes written since the last call, joined, waiting (blocking the calling thread) until
    /// there are some; `.finished` or `.failed` once the feed has ended and everything is read.
    /// For an endpoint that serves the channel on threads of its own.
    package func nextBlocking() -> (Data?, End) {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if state.cancelled { return (nil, .failed) }
            if !state.chunks.isEmpty {
                let data = state.chunks.count == 1 ? state.chunks[0] : state.chunks.reduce(into: Data(capacity: state.buffered)) { $0.append($1) }
                state.drop()
                return (data, .open)
            }
            if state.end != .open { return (nil, state.end) }
            condition.wait()
        }
    }

    /// The feed as an asynchronous stream of chunks, for an engine that serves the channel through
    /// its custom-scheme handling; the stream's consumer going away cancels the feed.
    var chunks: AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            let thread = Thread { [self] in
                while true {
                    let (data, end) = nextBlocking()
                    if let data {
                        if case .terminated = continuation.yield(data) { cancel(); return }
                        continue
                    }
                    if end == .finished { continuation.finish() } else { continuation.finish(throwing: CancellationError()) }
                    return
                }
            }
            continuation.onTermination = { [weak self] termination in
                if case .cancelled = termination { self?.cancel() }
            }
            thread.name = "hybridkit-byte-feed"
            thread.start()
        }
    }
}

/// Where bytes the page posts to the byte channel under a token go as they arrive, instead of into
/// the store: a body the page sends whole in one request (a `Blob` a module needs to stream on, such
/// as the request proxy's upload), which the channel's endpoint hands over a block at a time.
/// Only an engine whose channel is a loopback endpoint (Blink) accepts such posts
/// (``BridgeCallContext/openByteSink(_:)``).
public protocol BridgeByteSink: AnyObject, Sendable {
    /// The next block of the post, in order; may block the calling thread (the endpoint's connection
    /// thread) until there is room. `false`: take no more (the post is refused from here on).
    func receive(_ data: Data) -> Bool
    /// The post ended: `complete` when every byte it declared arrived (and was taken).
    func end(complete: Bool)
}

/// What a message carries to name a feed or a sink of the view's byte store: `{"$feed": token}`
/// (the page runtime puts a `ReadableStream` of the feed there) or `{"$sink": token}` (a function
/// that posts a `Blob` to the sink, or `null` where the page cannot).
public struct BridgeByteReference: Codable, Sendable, Hashable {
    /// What the token names.
    public enum Kind: String, CodingKey, Sendable, Hashable {
        /// A ``BridgeByteFeed``: bytes for the page to read as they arrive.
        case feed = "$feed"
        /// A ``BridgeByteSink``: where the page posts a body whole.
        case sink = "$sink"
    }

    /// What the token names.
    public let kind: Kind
    /// The token in the view's byte store.
    public let token: String

    /// A reference to the `kind` under `token`.
    public init(_ kind: Kind, token: String) {
        self.kind = kind
        self.token = token
    }

    /// Decodes `{"$feed": token}` or `{"$sink": token}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        guard let kind = container.allKeys.first, container.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a feed or sink reference"))
        }
        self.kind = kind
        token = try container.decode(String.self, forKey: kind)
    }

    /// Encodes `{"$feed": token}` or `{"$sink": token}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Kind.self)
        try container.encode(token, forKey: kind)
    }
}
