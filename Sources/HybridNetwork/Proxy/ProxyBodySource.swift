import Foundation
import HybridBridge
import HybridBase

/// A request body that stays in the page and is pulled from it by offset, a slice at a time,
/// while `URLSession` sends it (``ProxyRequest/bodySize``).
///
/// Why pull: no engine carries bytes from a page to the app except as text inside a script
/// message (docs/request-proxy.md, "Large bodies"), so a body sent whole costs the app its
/// base64 text, its bytes and URLSession's copy. Here the transfer reads from an `InputStream`
/// (``makeStream(deadline:)``) that asks the page for `[offset, offset + length)` as a progress
/// report of the request's own bridge call (``ProxyPull``), and the page answers with a
/// `proxy.slice` call (``ProxySlice``). At most ``window`` slices are held or asked for at
/// once, so the app's memory stays bounded whatever the body's size, and the page is never
/// asked faster than the server takes the bytes. Each new stream starts again at offset 0: a
/// 307/308 redirect or a retry on a new connection replays the body.
///
/// Every answer is checked against what was asked (its pull number, offset and length, valid
/// base64); anything else fails the request with ``NetworkFailure/invalidBody(_:)`` and the
/// stream stops mid-body, so a wrong body never reaches the server whole. Answers to pulls of an
/// earlier stream (a replay started meanwhile) are ignored.
///
/// Where the bridge's byte channel takes a post as it arrives (Blink's loopback endpoint,
/// ``BridgeCallContext/openByteSink(_:)``), the first stream's first pull also offers a sink
/// (``ProxyPull/sink``): a page whose body is a `Blob` posts it whole, in one request, and its
/// bytes reach the transfer a block at a time as the endpoint reads them (``receive(_:)``), with no
/// further pull; a page that cannot answers the pull with its slice, and the body goes on in slices.
/// A replay always goes in slices (the post is gone by then).
final class ProxyBodySource: BridgeByteSink, @unchecked Sendable {
    /// Bytes per slice: a 200 MB body is 100 bridge round trips, and a slice's message (2.7 MB
    /// of base64 where the engine has no byte channel) stays well under the bridge's default
    /// message limit (16 MB). Measured with `hybrid bench data` on WebKitGTK with the byte
    /// channel (upload_50mb_ratio, runs in a row): 1 MB slices four at a time 1.85–2.15, 2 MB six
    /// at a time 1.40–1.71; wider windows (8–16 slices) and 4 MB slices were no faster.
    static let sliceBytes = 2 << 20
    /// Whether request bodies stream on this platform: where Foundation reads a body stream the
    /// way measured here (swift-corelibs-foundation). Apple's URLSession reads body streams on a
    /// run loop and was not measured (no Apple device): bodies stay inline there, as before.
    #if canImport(FoundationNetworking)
    static let isAvailable = true
    #else
    static let isAvailable = false
    #endif
    /// Slices held or asked for at once: the one the transfer reads and five on their way, so
    /// the page's reading and the bridge's latency overlap the sending (see ``sliceBytes``). At
    /// most 12 MB of body in flight (plus their base64 where there is no byte channel).
    static let window = 6

    /// The random name the page's answers carry; only the calling document ever learns it.
    let id: String
    /// The body's declared size in bytes.
    let size: Int64
    /// The origin of the page that started the request.
    let origin: BridgeOrigin?
    /// The router's document that started the request.
    let document: Int?
    /// The request's own timeout, for the failure a stream that waited too long reports (set
    /// under the lock: streams read it on URLSession's queue).
    var timeoutMilliseconds: Int {
        get { condition.withLock { timeout } }
        set { condition.withLock { timeout = newValue } }
    }

    private let pull: @Sendable (ProxyPull) -> Void
    private let openSink: (@Sendable (any BridgeByteSink) -> BridgeByteReference?)?
    /// How the stream of this generation gets its bytes.
    private enum Mode { case slices, offering(seq: Int), posted }
    private var mode = Mode.slices
    /// Where the posted bytes have reached (``Mode/posted``).
    private var postedOffset: Int64 = 0
    private let condition = NSCondition()
    private var generation = 0
    private var firstPullOfGeneration = 0
    private var nextPull = 0
    private var position: Int64 = 0
    private var requested: Int64 = 0
    private var current = Data()
    private var consumed = 0
    private var ready: [Int64: Data] = [:]
    private var outstanding: [Int: (offset: Int64, length: Int)] = [:]
    private var deadline = Date.distantFuture
    private var stopped: NetworkFailure?
    private var cancelled = false
    private var timeout = 0
    private var waitingReads = 0

    /// Reads blocked waiting for the page's slice (tests check that cancelling wakes them).
    var blockedReads: Int { condition.withLock { waitingReads } }

    /// A body of `size` bytes whose slices are asked for through `pull` (never called with a lock
    /// held); with `openSink`, the first stream offers the page a sink to post the body to whole.
    init(size: Int64, origin: BridgeOrigin?, document: Int?,
         openSink: (@Sendable (any BridgeByteSink) -> BridgeByteReference?)? = nil, pull: @escaping @Sendable (ProxyPull) -> Void) {
        id = BridgeByteStore.makeToken()
        self.size = size
        self.origin = origin
        self.document = document
        self.openSink = openSink
        self.pull = pull
    }

    /// Why the body failed, if it did.
    var failure: NetworkFailure? { condition.withLock { stopped } }

    /// A stream over the whole body from offset 0 (a new one for every hop or retry); the first
    /// slices are asked for at once. A read waits for the page until `deadline`.
    func makeStream(deadline: Date) -> InputStream {
        // Only the first stream is offered a sink: the page posts its body once.
        let sink = condition.withLock { generation == 0 } ? openSink?(self) : nil
        let (stream, pulls) = condition.withLock { () -> (ProxyBodyInputStream, [ProxyPull]) in
            generation += 1
            mode = .slices
            firstPullOfGeneration = nextPull
            position = 0
            requested = 0
            current = Data()
            consumed = 0
            ready.removeAll()
            outstanding.removeAll()
            self.deadline = deadline
            condition.broadcast()   // a read of the previous stream stops waiting: it is over
            var pulls = askLocked(limit: sink == nil ? Self.window : 1)
            if let sink, !pulls.isEmpty {
                pulls[0].sink = sink
                mode = .offering(seq: pulls[0].seq)
            }
            return (ProxyBodyInputStream(source: self, generation: generation), pulls)
        }
        pulls.forEach(pull)
        return stream
    }

    /// Stops every stream: reads fail, answers are refused (the request was cancelled or is over).
    func cancel() {
        condition.withLock {
            cancelled = true
            ready.removeAll()
            current = Data()
            condition.broadcast()
        }
    }

    /// Takes the page's answer to a pull.
    /// - Throws: ``NetworkFailure/invalidBody(_:)`` when it is not what was asked (the request then
    ///   fails too), or when the body is no longer being sent.
    func deliver(_ slice: ProxySlice) throws {
        try condition.withLock {
            if cancelled { throw HybridError.network(.invalidBody("the request is over")) }
            if let stopped { throw HybridError.network(stopped) }
            guard let asked = outstanding[slice.seq] else {
                // An answer to a pull of a stream that a replay replaced: no longer wanted.
                if slice.seq >= 0 && slice.seq < firstPullOfGeneration { return }
                throw failLocked("slice \(slice.seq) was not asked for")
            }
            if let error = slice.error { throw failLocked("the page could not read it: \(error.prefix(200))") }
            guard slice.offset == asked.offset else {
                throw failLocked("slice \(slice.seq) is at offset \(slice.offset), asked for \(asked.offset)")
            }
            if let why = slice.malformed { throw failLocked("slice \(slice.seq): \(why)") }
            guard let data = slice.data else { throw failLocked("slice \(slice.seq) has no bytes") }
            guard data.count == asked.length else {
                throw failLocked(data.count > asked.length
                    ? "slice \(slice.seq) has \(data.count) bytes, asked for \(asked.length)"
                    : "the body ended at \(asked.offset + Int64(data.count)) of \(size) declared bytes")
            }
            outstanding.removeValue(forKey: slice.seq)
            ready[asked.offset] = data
            // The page answered the sink's offer with its slice: the body goes on in slices.
            if case .offering = mode { mode = .slices }
            condition.broadcast()
        }
    }

    /// A block of the body the page posted to the sink (on the endpoint's connection thread): kept
    /// in order, waiting while ``window`` slices' worth is held, so a fast post never outruns the
    /// server by more than that. `false` once the stream that offered the sink is over, or when the
    /// post carries more than the body's declared size.
    func receive(_ data: Data) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        switch mode {
        case .offering(let seq) where generation == 1:
            // The page posted instead of answering the pull: that pull is answered.
            outstanding.removeValue(forKey: seq)
            mode = .posted
        case .posted where generation == 1: break
        default: return false
        }
        while !cancelled, stopped == nil, generation == 1, ready.values.reduce(0, { $0 + $1.count }) >= Self.window * Self.sliceBytes {
            condition.wait()
        }
        guard !cancelled, stopped == nil, generation == 1 else { return false }
        guard postedOffset + Int64(data.count) <= size else {
            _ = failLocked("the page posted more than the \(size) bytes it declared")
            return false
        }
        ready[postedOffset] = data
        postedOffset += Int64(data.count)
        condition.broadcast()
        return true
    }

    /// The post ended; one that ended before the declared size fails the body.
    func end(complete: Bool) {
        condition.withLock {
            guard case .posted = mode, generation == 1, stopped == nil, !cancelled, postedOffset < size else { return }
            _ = failLocked("the body ended at \(postedOffset) of \(size) declared bytes")
        }
    }

    private func failLocked(_ message: String) -> HybridError {
        let reason = NetworkFailure.invalidBody(message)
        stopped = reason
        condition.broadcast()
        return .network(reason)
    }

    /// Pulls for the next slices, up to `limit` (``window``) held or asked for; none while the
    /// page is offered a sink or posts to it.
    private func askLocked(limit: Int = ProxyBodySource.window) -> [ProxyPull] {
        var pulls: [ProxyPull] = []
        if case .slices = mode {} else { return pulls }
        var held = ready.count + outstanding.count + (consumed < current.count ? 1 : 0)
        while requested < size && held < limit {
            let length = Int(min(Int64(Self.sliceBytes), size - requested))
            let number = nextPull
            nextPull += 1
            outstanding[number] = (requested, length)
            pulls.append(ProxyPull(id: id, seq: number, offset: requested, length: length))
            requested += Int64(length)
            held += 1
        }
        return pulls
    }

    /// Whether stream `generation` has more to read (or a failure to report by reading).
    fileprivate func hasBytes(generation: Int) -> Bool {
        condition.withLock { generation != self.generation || cancelled || stopped != nil || position < size }
    }

    /// Copies up to `maxLength` bytes of stream `generation`, waiting for the page's slice.
    /// Returns 0 at the end of the body, -1 when it failed, was cancelled, or was replaced.
    fileprivate func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int, generation: Int) -> Int {
        var pulls: [ProxyPull] = []
        defer { pulls.forEach(pull) }
        condition.lock()
        defer { condition.unlock() }
        while true {
            guard !cancelled, stopped == nil, generation == self.generation else { return -1 }
            if consumed < current.count {
                let count = min(maxLength, current.count - consumed)
                current.withUnsafeBytes { raw in
                    buffer.update(from: raw.bindMemory(to: UInt8.self).baseAddress! + consumed, count: count)
                }
                consumed += count
                position += Int64(count)
                if consumed == current.count {
                    current = Data()
                    consumed = 0
                    pulls = askLocked()
                    condition.broadcast()   // a post waiting for room goes on
                }
                return count
            }
            if position >= size { return 0 }
            if let next = ready.removeValue(forKey: position) {
                current = next
                consumed = 0
                pulls = askLocked()
                continue
            }
            waitingReads += 1
            let woken = condition.wait(until: deadline)
            waitingReads -= 1
            if !woken && Date() >= deadline {
                stopped = .timedOut(milliseconds: timeout)
                return -1
            }
        }
    }
}

/// The `InputStream` URLSession reads a ``ProxyBodySource`` through (one per hop or retry).
///
/// swift-corelibs-foundation reads `httpBodyStream` on its session's work queue and takes
/// `hasBytesAvailable == false` as the end of the body, so a read blocks until the page's slice
/// arrives — which is why a streamed body gets a session of its own (``RequestProxy``).
final class ProxyBodyInputStream: InputStream {
    private let source: ProxyBodySource
    private let generation: Int
    private var status: Stream.Status = .notOpen

    fileprivate init(source: ProxyBodySource, generation: Int) {
        self.source = source
        self.generation = generation
        super.init(data: Data())
    }

    override var streamStatus: Stream.Status { status }
    override func open() { status = .open }
    override func close() { status = .closed }
    override var hasBytesAvailable: Bool { source.hasBytes(generation: generation) }
    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let count = source.read(buffer, maxLength: len, generation: generation)
        if count <= 0 { status = count == 0 ? .atEnd : .error }
        return count
    }
}

/// The native side asking the page for a slice of a streamed request body (a progress report
/// of the request's bridge call, phase `pull`).
public struct ProxyPull: Codable, Sendable, Hashable {
    /// The body's random name, to be repeated in the answer.
    public var id: String
    /// The pull's number, to be repeated in the answer.
    public var seq: Int
    /// The first byte asked for.
    public var offset: Int64
    /// How many bytes are asked for (fewer only at the end of the body).
    public var length: Int
    /// A sink the page may post its whole body to instead of answering (the first pull of a body,
    /// where the bridge's byte channel takes streamed posts): the page then answers no pull.
    public var sink: BridgeByteReference?
}

/// The page's answer to a ``ProxyPull`` (`hybrid.call('proxy', 'slice', …)`).
public struct ProxySlice: Codable, Sendable, Hashable {
    /// The body's name from the pull.
    public var id: String
    /// The pull's number.
    public var seq: Int
    /// The first byte, as asked.
    public var offset: Int64
    /// Exactly the bytes asked for. On the wire: bytes as the bridge carries them (the page
    /// runtime sends a `Uint8Array`: through the byte channel where the engine has one, else as
    /// `$bytes`), or a base64 string.
    public var data: Data?
    /// Why the page could not read its body (a file that changed or went away), instead of `data`.
    public var error: String?
    /// Why `data` could not be read from the answer (not base64, a token that names no bytes):
    /// the request then fails with ``NetworkFailure/invalidBody(_:)`` rather than waiting for a
    /// slice that will not come.
    var malformed: String?

    private enum Key: String, CodingKey { case id, seq, offset, data, error }

    /// An answer.
    public init(id: String, seq: Int, offset: Int64, data: Data?, error: String? = nil) {
        self.id = id
        self.seq = seq
        self.offset = offset
        self.data = data
        self.error = error
    }

    /// Decodes an answer; `data` that is present but unreadable is kept as ``malformed``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        id = try container.decode(String.self, forKey: .id)
        seq = try container.decode(Int.self, forKey: .seq)
        offset = try container.decode(Int64.self, forKey: .offset)
        error = try container.decodeIfPresent(String.self, forKey: .error)
        guard container.contains(.data), try !container.decodeNil(forKey: .data) else { return }
        do {
            data = try BridgeBytes.decodeData(container.superDecoder(forKey: .data))
        } catch {
            malformed = "its bytes are unreadable (\(Self.reason(error)))"
        }
    }

    /// Encodes an answer with `data` as base64 text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(id, forKey: .id)
        try container.encode(seq, forKey: .seq)
        try container.encode(offset, forKey: .offset)
        try container.encodeIfPresent(data?.base64EncodedString(), forKey: .data)
        try container.encodeIfPresent(error, forKey: .error)
    }

    private static func reason(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
        return "not bytes"
    }
}
