import Foundation
import HybridBase
import HybridEngine

/// Routes page messages to modules for one container, and owns every policy on the way:
/// size, format, document nonce, origin allowlist, in-flight bound, timeouts, cancellation.
///
/// The router knows no engine. ``BridgeHost`` feeds it message text with the main frame's
/// origin and delivers its answers; tests drive it directly.
@MainActor
public final class BridgeRouter {
    /// The protocol version the runtime reports as `hybrid.version`.
    public static let version = "1.0.0"

    /// Bounds that keep a hostile or runaway page from exhausting the app.
    public struct Limits: Sendable, Equatable {
        /// Larger messages fail with `payload_too_large` before parsing.
        public var maxMessageBytes: Int
        /// Calls running at once; more fail with `queue_full`.
        public var maxInFlight: Int
        /// Total bytes of the messages of the calls running at once; more fail with `queue_full`.
        public var maxInFlightBytes: Int
        /// Applied when the page gives no timeout.
        public var defaultTimeout: Duration
        /// The longest timeout a page may ask for.
        public var maxTimeout: Duration

        /// Defaults: 16 MiB messages, 256 calls and 64 MiB in flight, 30 s default and 600 s maximum timeout.
        public init(maxMessageBytes: Int = BridgeDecoder.defaultMaxMessageBytes, maxInFlight: Int = 256,
                    maxInFlightBytes: Int = 64 << 20, defaultTimeout: Duration = .seconds(30),
                    maxTimeout: Duration = .seconds(600)) {
            self.maxMessageBytes = maxMessageBytes
            self.maxInFlight = maxInFlight
            self.maxInFlightBytes = maxInFlightBytes
            self.defaultTimeout = defaultTimeout
            self.maxTimeout = maxTimeout
        }
    }

    /// Where a document's nonce comes from.
    public enum NonceMode: Sendable, Equatable {
        /// The document's hello sets it: the router makes one for a hello that asks (the answer
        /// carries it), or takes the one a hello announces (the transport lives in an isolated
        /// world that only the top frame's document can reach).
        case announced
        /// The router issues one per document (``beginDocument()``) and the host delivers it to
        /// the top frame only; hellos are refused (engines without script worlds).
        case issued
        /// No nonce and no hello: every message is fetched by the host from the main frame
        /// (the legacy URL transport, which has no message handler to protect).
        case none
    }

    /// Where a message came from.
    public enum Source: Sendable, Equatable {
        /// Posted by a document through a message handler: the nonce must match.
        case document
        /// Fetched by the host from the main frame's current document (legacy URL transport).
        case mainFrame
    }

    /// The bounds in force.
    public let limits: Limits
    /// Where document nonces come from (fixed by the transport).
    public let nonceMode: NonceMode
    /// Receives log lines (refused calls, dropped replies).
    public var logger: (@MainActor (BridgeLogEntry) -> Void)?
    /// Receives progress and event text for a document, in order.
    public var outbound: (@MainActor (String, BridgeDocument) -> Void)?
    /// Told how every accepted call ended, exactly once each.
    public var onCompletion: (@MainActor (BridgeCompletion) -> Void)?
    /// What `hybrid.capabilities` reports (set by the host from the engine's capabilities).
    public var capabilities: JSONValue = .object([:])

    /// The main frame's current document, if one has begun.
    public internal(set) var document: BridgeDocument?
    var generation = 0
    /// A hello began the current document before its commit was reported (see ``beginDocument()``).
    private var helloBeganDocument = false
    var decoder: BridgeDecoder
    /// The view's byte store, bound while a call is decoded and its answer, progress and events
    /// are encoded (set by ``BridgeHost`` where the engine has a byte channel).
    var byteBinding: BridgeByteStore.Binding?
    var calls = BridgeCallTable()
    /// Answers of calls that finished before their caller started waiting (handlers that never
    /// suspended); ``run`` takes each one out at once.
    var answered: [UInt64: ScriptReply] = [:]
    private var moduleNamesByOrigin: [BridgeOrigin?: [String]] = [:]
    let deadlines = BridgeDeadlines()

    /// A router with `modules` registered.
    public init(modules: [any BridgeModule] = [], limits: Limits = Limits(), nonceMode: NonceMode = .announced) {
        self.limits = limits
        self.nonceMode = nonceMode
        decoder = BridgeDecoder(maxMessageBytes: limits.maxMessageBytes)
        for module in modules { register(module) }
        deadlines.onExpire = { [weak self] token in
            guard let self, let ms = self.calls.timeoutMilliseconds(of: token) else { return }
            self.finish(token, .failure(.timeout(milliseconds: ms)))
        }
    }

    /// Registers (or replaces) a module.
    public func register(_ module: any BridgeModule) {
        decoder.table.register(module)
        moduleNamesByOrigin.removeAll()
    }

    /// The registered module names, sorted.
    public var moduleNames: [String] { decoder.table.modules.keys.sorted() }

    /// The names of the modules `origin` may call, sorted.
    public func moduleNames(for origin: BridgeOrigin?) -> [String] {
        if let names = moduleNamesByOrigin[origin] { return names }
        let names = decoder.table.modules.filter { $0.value.allowedOrigins.admits(origin) }.keys.sorted()
        if moduleNamesByOrigin.count > 64 { moduleNamesByOrigin.removeAll() }
        moduleNamesByOrigin[origin] = names
        return names
    }

    /// Calls that have been accepted and not yet answered.
    public var pendingCount: Int { calls.count }

    // MARK: Documents

    /// The main frame committed a new document: every pending call of the old one is cancelled
    /// and its reply dropped. In ``NonceMode/issued`` mode the new document's nonce is returned
    /// for the host to deliver; in ``NonceMode/announced`` mode the document's hello sets it.
    @discardableResult
    public func beginDocument() -> BridgeDocument {
        // The new document's hello outran its commit report: that hello already began it.
        if helloBeganDocument, let document {
            helloBeganDocument = false
            return document
        }
        generation += 1
        let nonce = nonceMode == .issued ? Self.makeNonce() : nil
        let document = BridgeDocument(generation: generation, nonce: nonce)
        self.document = document
        dropCalls(except: generation)
        return document
    }

    /// A hello announced `nonce`: it becomes the current document's nonce if the document has
    /// none yet (just committed), else it starts a new document (the hello outran its commit).
    func adoptAnnounced(nonce: String) {
        if let document, document.nonce == nil {
            self.document = BridgeDocument(generation: document.generation, nonce: nonce)
            helloBeganDocument = false
        } else {
            generation += 1
            document = BridgeDocument(generation: generation, nonce: nonce)
            dropCalls(except: generation)
            helloBeganDocument = true
        }
    }

    /// The main frame has no bridge document any more (closed, crashed): pending replies are dropped.
    public func endDocument() {
        helloBeganDocument = false
        generation += 1
        document = nil
        dropCalls(except: generation)
    }

    /// Fails every pending call with `failure` (`engine_terminated` when the content process
    /// died), exactly once each. Replies are still handed back to their transports, which
    /// deliver them if anyone is left to listen.
    /// - Returns: how many calls were failed.
    @discardableResult
    public func failAll(_ failure: BridgeFailure) -> Int {
        let tokens = calls.tokens
        for token in tokens { finish(token, .failure(failure)) }
        return tokens.count
    }

    // MARK: Events

    /// Sends an event to the current document's `hybrid.on(name)` listeners, in order.
    /// - Returns: `false` when there is no document to send it to (nothing is queued for later).
    /// - Throws: ``BridgeFailure/internalError(_:)`` when `payload` cannot be encoded.
    @discardableResult
    public func emit<Payload: Encodable & Sendable>(_ name: String, _ payload: Payload) throws -> Bool {
        // In announced mode a document has listeners only once its hello arrived. Checked first:
        // an event nobody can receive must not leave its bytes in the byte store.
        guard let document, document.nonce != nil || nonceMode != .announced else { return false }
        let payloadJSON = try withBytes { try BridgeJSON.encode(payload) }
        outbound?(BridgeWire.event(name: name, payloadJSON: payloadJSON), document)
        return true
    }

    func log(_ level: BridgeLogEntry.Level, _ failure: BridgeFailure, origin: BridgeOrigin?,
             module: String? = nil, action: String? = nil) {
        logger?(BridgeLogEntry(level: level, code: failure.code, message: failure.description,
                               origin: origin, module: module, action: action))
    }

    static func makeNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(generator.next() as UInt64, radix: 36) }.joined(separator: "-")
    }
}

/// One main-frame document as the router sees it.
public struct BridgeDocument: Sendable, Hashable {
    /// Increases with every document; replies are only delivered to their own generation.
    public let generation: Int
    /// The nonce calls from this document must carry (`nil` until its hello in announced mode).
    public let nonce: String?
}
