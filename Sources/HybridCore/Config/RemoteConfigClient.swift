import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridBase
import HybridHTTP
import HybridPackages

/// Keeps an app's remote config current and answers, per navigation, which features apply.
///
/// At start it loads the last good document from its ``RemoteConfigCache`` (signature checked
/// again); ``start()`` then fetches `config/latest.json` and its `.sig` from the repository at
/// once and every ``Options/refreshInterval``. A fetched document is accepted only when its
/// signature verifies with the trusted key, it is valid and unexpired, and its version is not
/// below the one held; it is then cached before it is used. Anything refused leaves the held
/// document in place. With no usable document — none yet, or the held one expired — every page
/// gets ``FeatureSet/safeDefaults``.
///
/// ``features(for:)`` is synchronous and cheap (a lock and a few pattern matches), so a web
/// view can ask on every navigation.
public final class RemoteConfigClient: @unchecked Sendable {
    /// Where config comes from, where it is kept and how often it is fetched.
    public struct Options: Sendable {
        /// The repository's base URL (`https://cdn.example.com/repo/`).
        public var repository: URL
        /// Where the last good document (and the install id) are kept.
        public var cache: RemoteConfigCache
        /// The install's id; it seeds rollout buckets.
        public var installID: String
        /// How often ``start()`` fetches again.
        public var refreshInterval: TimeInterval
        /// Per-request timeout.
        public var timeout: TimeInterval
        /// Documents larger than this are refused before decoding.
        public var maximumSize: Int
        /// The overall and stall deadlines of each download (``DownloadDeadlines/standard`` by default).
        public var deadlines: DownloadDeadlines

        /// Options; by default a refresh every 15 minutes, a 30-second timeout and a 1 MiB limit.
        public init(repository: URL, cache: RemoteConfigCache, installID: String, refreshInterval: TimeInterval = 900,
                    timeout: TimeInterval = 30, maximumSize: Int = 1 << 20, deadlines: DownloadDeadlines = .standard) {
            self.deadlines = deadlines
            self.repository = repository
            self.cache = cache
            self.installID = installID
            self.refreshInterval = refreshInterval
            self.timeout = timeout
            self.maximumSize = maximumSize
        }
    }

    /// What a refresh did.
    public enum RefreshOutcome: Sendable, Equatable {
        /// A newer document was accepted (`from` is the version held before, if any).
        case updated(from: Int?, to: Int)
        /// The repository offered the version already held.
        case unchanged(Int)
    }

    /// The options the client was made with.
    public let options: Options
    private let verifier: any SignatureVerifier
    private let now: @Sendable () -> Date
    private let onRefresh: (@Sendable (Result<RefreshOutcome, HybridError>) -> Void)?
    private let session: URLSession
    private let lock = NSLock()
    private var held: (config: RemoteConfig, document: Data)?
    private var periodic: Task<Void, Never>?

    /// Loads the cached document, if there is a valid one.
    /// - Parameters:
    ///   - verifier: the publisher's public key (the same kind of key packages are signed with).
    ///   - now: the clock, injectable for tests.
    ///   - onRefresh: called after every periodic refresh (from any thread), for logs.
    public init(options: Options, verifier: any SignatureVerifier, now: @escaping @Sendable () -> Date = { Date() },
                onRefresh: (@Sendable (Result<RefreshOutcome, HybridError>) -> Void)? = nil) {
        self.options = options
        self.verifier = verifier
        self.now = now
        self.onRefresh = onRefresh
        let configuration = URLSessionConfiguration.ephemeral
        // latest.json changes in place: never answer it from a cache.
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = options.timeout
        session = URLSession(configuration: configuration)
        if let cached = options.cache.load(), let config = try? Self.verify(cached.document, signature: cached.signature, with: verifier, at: now()) {
            // An expired cached document is still held: its version keeps refusing downgrades.
            held = (config, cached.document)
        }
    }

    deinit {
        periodic?.cancel()
        session.invalidateAndCancel()
    }

    /// The document held (possibly expired), or `nil`.
    public var config: RemoteConfig? { lock.withLock { held?.config } }

    /// Which features apply to a navigation to `url` for this install.
    public func features(for url: URL) -> FeatureDecision {
        let config = lock.withLock { held?.config }
        guard let config else {
            return FeatureDecision(url: url, installID: options.installID, source: .noConfig, configVersion: nil,
                                   features: .safeDefaults, engine: nil, trace: [])
        }
        guard config.expires > now() else {
            return FeatureDecision(url: url, installID: options.installID, source: .expired(version: config.version),
                                   configVersion: config.version, features: .safeDefaults, engine: nil, trace: [])
        }
        return config.features(for: url, installID: options.installID)
    }

    /// Fetches the repository's document once and accepts it if it passes every check.
    /// - Throws: ``ConfigFailure``: `http_status`, `download_failed`, `missing_signature`,
    ///   `bad_signature`, `invalid_config`, `expired`, `version_rollback`, `version_reused`,
    ///   `cache_write_failed`. The held document stays in place.
    @discardableResult
    public func refresh() async throws -> RefreshOutcome {
        guard let document = try await fetch(ConfigRepositoryLayout.document) else {
            throw HybridError.cfg(.httpStatus(url: url(ConfigRepositoryLayout.document).absoluteString, status: 404))
        }
        let signature = try await fetch(ConfigRepositoryLayout.signature)
        return try accept(document: document, signature: signature)
    }

    /// Checks and takes a document obtained some other way (bundled with the app, pushed).
    /// - Throws: as ``refresh()`` does, minus the transfer errors.
    @discardableResult
    public func accept(document: Data, signature: Data?) throws -> RefreshOutcome {
        let config = try Self.verify(document, signature: signature, with: verifier, at: now())
        guard config.expires > now() else { throw HybridError.cfg(.expired(version: config.version, expires: config.expires)) }
        // Compare and store under one lock, so two refreshes racing cannot swap versions backwards.
        return try lock.withLock {
            let previous = held
            if let previous {
                if config.version < previous.config.version {
                    throw HybridError.cfg(.versionRollback(offered: config.version, current: previous.config.version))
                }
                if config.version == previous.config.version {
                    guard document == previous.document else { throw HybridError.cfg(.versionReused(config.version)) }
                    return .unchanged(config.version)
                }
            }
            try options.cache.store(document: document, signature: signature ?? Data())
            held = (config, document)
            return .updated(from: previous?.config.version, to: config.version)
        }
    }

    /// Refreshes now and then every ``Options/refreshInterval`` until ``stop()``. Failures are
    /// reported to `onRefresh` and never clear the held document.
    public func start() {
        let interval = max(0.1, options.refreshInterval)
        // The loop holds the client only while a refresh runs, never while it sleeps, so a
        // client dropped without `stop()` still goes away (and its deinit cancels the loop).
        let task = Task { [weak self] in
            while !Task.isCancelled {
                guard let refreshed = await self?.refreshAndReport(), refreshed else { return }
                try? await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
            }
        }
        lock.withLock {
            periodic?.cancel()
            periodic = task
        }
    }

    /// One periodic refresh, reported to `onRefresh`. Always `true` (the loop's keep-going flag).
    private func refreshAndReport() async -> Bool {
        let result: Result<RefreshOutcome, HybridError>
        do {
            result = .success(try await refresh())
        } catch {
            result = .failure(error as? HybridError ?? .cfg(.internalError("\(error)")))
        }
        onRefresh?(result)
        return true
    }

    /// Stops periodic refreshes.
    public func stop() {
        lock.withLock {
            periodic?.cancel()
            periodic = nil
        }
    }

    /// Verifies `signature` (a `.sig` file's bytes) over `document` with the keys valid at `now`,
    /// then decodes and validates it.
    /// - Throws: ``ConfigFailure/missingSignature``, ``ConfigFailure/badSignature``, a key-validity
    ///   failure (`key_expired`, `key_revoked`, `key_not_yet_valid`) or a decoding failure.
    public static func verify(_ document: Data, signature: Data?, with verifier: any SignatureVerifier,
                              at now: Date = Date()) throws -> RemoteConfig {
        do {
            try DetachedSignature.verify(signature, of: document, what: "config", with: verifier, at: now)
        } catch HybridError.package(.missingSignature) {
            throw HybridError.cfg(.missingSignature)
        } catch HybridError.package(.keyExpired(let key, let until)) {
            throw HybridError.cfg(.keyExpired(key: key, until: until))
        } catch HybridError.package(.keyNotYetValid(let key, let from)) {
            throw HybridError.cfg(.keyNotYetValid(key: key, from: from))
        } catch HybridError.package(.keyRevoked(let key)) {
            throw HybridError.cfg(.keyRevoked(key: key))
        } catch {
            throw HybridError.cfg(.badSignature)
        }
        return try RemoteConfig.decode(document)
    }

    // MARK: Transfer

    /// GETs `path` below the repository; `nil` on 404.
    private func fetch(_ path: String) async throws -> Data? {
        let url = url(path)
        let request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        let response: HTTPURLResponse, data: Data
        do {
            (response, data) = try await BoundedFetch.get(request, limit: options.maximumSize, deadlines: options.deadlines)
        } catch let failure as BoundedFetch.Failure {
            switch failure {
            case .tooLarge(let limit, let declared): throw HybridError.cfg(.tooLarge(url: url.absoluteString, limit: limit, declared: declared))
            case .stalled(let seconds): throw HybridError.cfg(.stalled(url: url.absoluteString, seconds: seconds))
            case .timedOut(let seconds): throw HybridError.cfg(.timedOut(url: url.absoluteString, seconds: seconds))
            case .transport(let message): throw HybridError.cfg(.downloadFailed(url: url.absoluteString, message: message))
            }
        }
        if response.statusCode == 404 { return nil }
        guard response.statusCode == 200 else { throw HybridError.cfg(.httpStatus(url: url.absoluteString, status: response.statusCode)) }
        return data
    }

    private func url(_ path: String) -> URL {
        let base = options.repository.absoluteString.hasSuffix("/") ? options.repository : options.repository.appendingPathComponent("")
        return URL(string: path, relativeTo: base)?.absoluteURL ?? base.appendingPathComponent(path)
    }
}
