import Foundation
import HybridBase

/// What a user had in a page that a dead content process or a killed app would otherwise lose:
/// the page's URL, the same-origin entries of the view's history before it, its `sessionStorage`,
/// its scroll position and its form fields (docs/restore.md).
///
/// ``HybridWebView/snapshotState()`` gives it as bytes an app stores; ``decode(_:policy:now:)``
/// reads them back and refuses corrupt, oversized, expired and foreign-origin bytes with a
/// ``RestoreFailure``.
public struct PageState: Sendable, Equatable, Codable {
    /// One form control's state, keyed by its form, its name (or id) and its place among controls of that name.
    public struct Field: Sendable, Equatable, Codable {
        /// `form index/name/occurrence` (`-1` for a control outside any form).
        public var key: String
        /// The text of a text control, textarea or select; `nil` for a checkbox or radio button.
        public var value: String?
        /// Whether a checkbox or radio button is checked; `nil` for other controls.
        public var checked: Bool?

        /// A field state.
        public init(key: String, value: String? = nil, checked: Bool? = nil) {
            self.key = key
            self.value = value
            self.checked = checked
        }
    }

    /// The page shown.
    public var url: URL
    /// The entries before it in the view's history that are of the same origin, oldest first.
    public var history: [URL]
    /// The page's `sessionStorage`.
    public var sessionStorage: [String: String]
    /// The page's scroll offsets, in CSS pixels.
    public var scrollX: Double, scrollY: Double
    /// Form controls the page did not mark `autocomplete=off` (never passwords, files or hidden inputs).
    public var fields: [Field]
    /// When the page last reported this state.
    public var taken: Date

    /// A page state.
    public init(url: URL, history: [URL] = [], sessionStorage: [String: String] = [:], scrollX: Double = 0, scrollY: Double = 0,
                fields: [Field] = [], taken: Date) {
        self.url = url
        self.history = history
        self.sessionStorage = sessionStorage
        self.scrollX = scrollX
        self.scrollY = scrollY
        self.fields = fields
        self.taken = taken
    }

    /// The origin of ``url``; `nil` for a page without one worth trusting.
    public var origin: BridgeOrigin? { BridgeOrigin(url: url) }

    /// The first bytes of every snapshot: a format tag, so other bytes are refused before parsing.
    static let magic = Data("HKPS1\n".utf8)

    /// The snapshot as bytes to store (a format tag, then JSON).
    /// - Throws: ``RestoreFailure/tooLarge(size:limit:)`` when over `policy.maxBytes`.
    public func encoded(policy: RestorePolicy = RestorePolicy()) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        let data = try Self.magic + encoder.encode(self)
        guard data.count <= policy.maxBytes else { throw HybridError.restore(.tooLarge(size: data.count, limit: policy.maxBytes)) }
        return data
    }

    /// Reads bytes ``encoded(policy:)`` wrote.
    /// - Parameters:
    ///   - data: the stored bytes.
    ///   - policy: the size bound and the age after which a snapshot is refused.
    ///   - now: the time the age is measured at.
    /// - Returns: the snapshot, whose URL has an origin and whose history is of that origin.
    /// - Throws: `HybridError.restore` with ``RestoreFailure/tooLarge(size:limit:)`` (checked before
    ///   anything is parsed), ``RestoreFailure/corrupt(_:)``, ``RestoreFailure/expired(taken:expired:)``
    ///   or ``RestoreFailure/foreignOrigin(snapshot:target:)`` (a history entry of another origin).
    public static func decode(_ data: Data, policy: RestorePolicy = RestorePolicy(), now: Date = Date()) throws -> PageState {
        guard data.count <= policy.maxBytes else { throw HybridError.restore(.tooLarge(size: data.count, limit: policy.maxBytes)) }
        guard data.starts(with: magic) else { throw HybridError.restore(.corrupt("not a page state snapshot")) }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        let state: PageState
        do {
            state = try decoder.decode(PageState.self, from: data.dropFirst(magic.count))
        } catch {
            throw HybridError.restore(.corrupt("\(error)"))
        }
        try state.validate(policy: policy, now: now)
        return state
    }

    /// Checks what JSON alone cannot: an origin, finite offsets, a plausible date, the age, one origin throughout.
    func validate(policy: RestorePolicy, now: Date) throws {
        guard let origin else { throw HybridError.restore(.corrupt("the page URL has no origin")) }
        guard scrollX.isFinite, scrollY.isFinite else { throw HybridError.restore(.corrupt("scroll offset is not finite")) }
        guard fields.count <= RestorePolicy.maxFields, history.count <= RestorePolicy.maxHistory else {
            throw HybridError.restore(.corrupt("too many fields or history entries"))
        }
        guard taken.timeIntervalSince(now) < 300 else { throw HybridError.restore(.corrupt("taken in the future")) }
        let expiry = taken.addingTimeInterval(policy.maxAge)
        guard expiry > now else { throw HybridError.restore(.expired(taken: taken, expired: expiry)) }
        if let foreign = history.first(where: { BridgeOrigin(url: $0) != origin }) {
            throw HybridError.restore(.foreignOrigin(snapshot: origin.description,
                                                     target: BridgeOrigin(url: foreign)?.description ?? foreign.absoluteString))
        }
    }
}

/// How a view keeps and gives back its page's state (``HybridWebViewConfiguration/restore``).
public struct RestorePolicy: Sendable, Equatable {
    /// Keeps the page's state and gives it back after the content process dies. On by default;
    /// a page opts out with `<meta name="hybrid-restore" content="none">`.
    public var isEnabled: Bool
    /// The largest snapshot kept or read, in bytes (a page whose state is larger keeps none).
    public var maxBytes: Int
    /// Seconds after which a stored snapshot is refused as expired.
    public var maxAge: TimeInterval

    /// The most form fields one snapshot carries.
    static let maxFields = 500
    /// The most history entries one snapshot carries.
    static let maxHistory = 50

    /// On, 256 KiB, one day.
    public init(isEnabled: Bool = true, maxBytes: Int = 256 * 1024, maxAge: TimeInterval = 24 * 3600) {
        self.isEnabled = isEnabled
        self.maxBytes = maxBytes
        self.maxAge = maxAge
    }
}
