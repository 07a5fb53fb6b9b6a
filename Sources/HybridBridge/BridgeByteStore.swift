import Foundation
import HybridBase

/// Bytes waiting to cross between a page and the app outside a script message: one store per
/// view, each entry keyed by a 128-bit random token and taken at most once.
///
/// The bridge's byte channel (docs/bridge.md, "Bytes without base64") puts a large
/// ``BridgeBytes`` value here instead of writing it into a message as base64: the page POSTs
/// the bytes of a param to the channel's URL and names the token in the call
/// (`{"$blob": token, "size": N}`), and a reply's bytes wait here until the page GETs them. The
/// store is bounded (total bytes and entry count), an entry expires when nobody takes it in
/// ``Limits/lifetime``, and ``removeAll()`` frees everything when the view's document changes or
/// the view closes. It knows nothing of engines or URLs: put bytes, take bytes by token.
public final class BridgeByteStore: Sendable {
    /// How much the store holds at most, and for how long.
    public struct Limits: Sendable, Equatable {
        /// The largest single entry, in bytes.
        public var maxEntryBytes: Int
        /// All entries together, in bytes.
        public var maxTotalBytes: Int
        /// How many entries at once.
        public var maxEntries: Int
        /// How long an entry waits to be taken before it is dropped.
        public var lifetime: Duration

        /// Bounds.
        /// - Parameters:
        ///   - maxEntryBytes: The largest single entry (the bridge uses its `maxMessageBytes`).
        ///   - maxTotalBytes: All entries together; 64 MiB by default.
        ///   - maxEntries: Entries at once; 64 by default.
        ///   - lifetime: How long an untaken entry lives; 30 s by default.
        public init(maxEntryBytes: Int = BridgeDecoder.defaultMaxMessageBytes, maxTotalBytes: Int = 64 << 20,
                    maxEntries: Int = 64, lifetime: Duration = .seconds(30)) {
            self.maxEntryBytes = maxEntryBytes
            self.maxTotalBytes = maxTotalBytes
            self.maxEntries = maxEntries
            self.lifetime = lifetime
        }
    }

    /// Why bytes were not stored or not taken.
    public enum Refusal: Error, Sendable, Equatable {
        /// The entry is larger than ``Limits/maxEntryBytes``.
        case tooLarge(size: Int, limit: Int)
        /// The store is full (bytes or entries); nothing was kept.
        case full
        /// The token is not 32 lower-case hex digits.
        case badToken
        /// A token that is already in the store.
        case duplicateToken
        /// No entry has this token: never stored, already taken, expired, or freed.
        case unknownToken
        /// The entry's size is not the size the taker expected (the entry is dropped).
        case wrongSize(expected: Int, actual: Int)
    }

    private struct Entry {
        var data: Data
        var expires: ContinuousClock.Instant
        /// A feed: bytes that arrive after it is named (``BridgeByteFeed``); `data` is empty.
        var feed: BridgeByteFeed?
        /// A sink: where a post under this token goes as it arrives (``BridgeByteSink``).
        var sink: (any BridgeByteSink)?
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var totalBytes = 0
        var puts = 0
        var takes = 0
    }

    /// The bounds this store keeps.
    public let limits: Limits
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let state = LockedState(State())

    /// An empty store.
    /// - Parameters:
    ///   - limits: The bounds.
    ///   - clock: The time source for expiry (tests pass their own).
    public init(limits: Limits = Limits(), clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.limits = limits
        self.clock = clock
    }

    /// A new 128-bit random token: 32 lower-case hex digits.
    public static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        var token = ""
        for _ in 0..<2 {
            let digits = String(generator.next() as UInt64, radix: 16)
            token += String(repeating: "0", count: 16 - digits.count) + digits
        }
        return token
    }

    /// Whether `token` has a token's form (32 lower-case hex digits).
    public static func isToken(_ token: String) -> Bool {
        token.utf8.count == 32 && token.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Keeps `data` under a new token.
    /// - Returns: The token.
    /// - Throws: ``Refusal/tooLarge(size:limit:)`` or ``Refusal/full``; nothing is kept then.
    @discardableResult
    public func put(_ data: Data) throws(Refusal) -> String {
        let token = Self.makeToken()
        try put(data, token: token)
        return token
    }

    /// Keeps `data` under `token` (a token the page made, for bytes it posted).
    /// - Throws: a ``Refusal`` (too large, full, a malformed or duplicate token); nothing is kept then.
    public func put(_ data: Data, token: String) throws(Refusal) {
        guard Self.isToken(token) else { throw .badToken }
        guard data.count <= limits.maxEntryBytes else { throw .tooLarge(size: data.count, limit: limits.maxEntryBytes) }
        let now = clock()
        let result: Refusal? = state.withLock { state in
            Self.dropExpired(&state, now: now)
            guard state.entries[token] == nil else { return .duplicateToken }
            guard state.entries.count < limits.maxEntries, state.totalBytes + data.count <= limits.maxTotalBytes else { return .full }
            state.entries[token] = Entry(data: data, expires: now + limits.lifetime)
            state.totalBytes += data.count
            state.puts += 1
            return nil
        }
        if let result { throw result }
    }

    /// Keeps a new, empty feed under a new token: a body the page reads as its bytes arrive
    /// (``BridgeByteFeed``). It counts as an entry, and the bytes waiting in it at once are bounded
    /// by ``Limits/maxTotalBytes``.
    /// - Throws: ``Refusal/full`` when the store holds its most entries; nothing is kept then.
    public func openFeed() throws(Refusal) -> BridgeByteFeed {
        let feed = BridgeByteFeed(token: Self.makeToken(), limit: limits.maxTotalBytes)
        try keep(token: feed.token) { Entry(data: Data(), expires: $0, feed: feed) }
        return feed
    }

    /// Keeps `sink` under a new token: a post to the channel under it goes to `sink` as it arrives
    /// (``BridgeByteSink``) instead of into the store. It counts as an entry until a post or
    /// ``takeSink(_:)`` takes it, or it expires.
    /// - Throws: ``Refusal/full`` when the store holds its most entries.
    public func openSink(_ sink: any BridgeByteSink) throws(Refusal) -> String {
        let token = Self.makeToken()
        try keep(token: token) { Entry(data: Data(), expires: $0, sink: sink) }
        return token
    }

    /// Keeps an entry of no bytes (a feed or a sink) under a new token, if the store has room for one more.
    private func keep(token: String, _ entry: (ContinuousClock.Instant) -> Entry) throws(Refusal) {
        let now = clock()
        let refused: Bool = state.withLock { state in
            Self.dropExpired(&state, now: now)
            guard state.entries.count < limits.maxEntries else { return true }
            state.entries[token] = entry(now + limits.lifetime)
            state.puts += 1
            return false
        }
        if refused { throw .full }
    }

    /// Takes the sink under `token` out of the store (once); `nil` when the token names something
    /// else (it stays), or nothing.
    public func takeSink(_ token: String) -> (any BridgeByteSink)? { takeEntry(token, \.sink) }

    /// Takes the feed under `token` out of the store (once); `nil` when the token names bytes
    /// instead (they stay), or nothing.
    public func takeFeed(_ token: String) -> BridgeByteFeed? { takeEntry(token, \.feed) }

    /// Takes the entry under `token` out of the store when it has `part` (a feed or a sink).
    private func takeEntry<Part>(_ token: String, _ part: KeyPath<Entry, Part?>) -> Part? {
        let now = clock()
        return state.withLock { state in
            Self.dropExpired(&state, now: now)
            guard let found = state.entries[token]?[keyPath: part] else { return nil }
            state.entries[token] = nil
            state.takes += 1
            return found
        }
    }

    /// Takes the entry under `token` out of the store (it can be taken once).
    /// - Parameter size: The size the taker expects, when it knows one; an entry of another size
    ///   is dropped and refused.
    /// - Returns: The bytes.
    /// - Throws: ``Refusal/unknownToken`` or ``Refusal/wrongSize(expected:actual:)``.
    public func take(_ token: String, size: Int? = nil) throws(Refusal) -> Data {
        let now = clock()
        let entry: Entry? = state.withLock { state in
            Self.dropExpired(&state, now: now)
            guard let entry = state.entries[token], entry.feed == nil, entry.sink == nil else { return nil }
            state.entries[token] = nil
            state.totalBytes -= entry.data.count
            state.takes += 1
            return entry
        }
        guard let entry else { throw .unknownToken }
        if let size, size != entry.data.count { throw .wrongSize(expected: size, actual: entry.data.count) }
        return entry.data
    }

    /// Drops every entry (the view's document changed, or the view closed); feeds nobody took fail.
    public func removeAll() {
        let feeds = state.withLock { state in
            defer {
                state.entries = [:]
                state.totalBytes = 0
            }
            return state.entries.values.compactMap(\.feed)
        }
        feeds.forEach { $0.fail() }
    }

    /// Entries held now (expired ones not yet dropped included).
    public var count: Int { state.withLock { $0.entries.count } }

    /// Bytes held now.
    public var totalBytes: Int { state.withLock { $0.totalBytes } }

    /// Entries kept and entries taken since the store was made (diagnostics: how often the byte
    /// channel carried a value).
    public var traffic: (puts: Int, takes: Int) { state.withLock { ($0.puts, $0.takes) } }

    private static func dropExpired(_ state: inout State, now: ContinuousClock.Instant) {
        guard state.entries.values.contains(where: { $0.expires <= now }) else { return }
        for (token, entry) in state.entries where entry.expires <= now {
            state.entries[token] = nil
            state.totalBytes -= entry.data.count
            entry.feed?.cancel()
        }
    }

    /// The store the bridge resolves `$blob` params against and puts large reply bytes into,
    /// bound by the router while it decodes a call and encodes its answer, progress and events.
    @TaskLocal static var bound: Binding?

    /// A store as the router binds it, with the size from which outbound bytes go into it.
    struct Binding: Sendable {
        let store: BridgeByteStore
        /// Replies, progress and events put byte values of at least this many bytes in the store.
        let threshold: Int
        /// Whether the channel takes a post as it arrives (``BridgeByteSink``): a loopback endpoint.
        var takesStreamedPosts = false
    }
}
