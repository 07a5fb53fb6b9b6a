import Foundation
import HybridEngine
import HybridHealth

/// Keeps the app's ``CookieJar`` — the single source of truth — and an engine's cookie store in
/// step, both ways, so every request the engine makes itself (first load, redirects to other
/// hosts, iframes, subresources) carries the jar's cookies, and cookies the engine receives
/// (`Set-Cookie`, `document.cookie`) or drops come back to the jar.
///
/// - Jar → engine: every jar change is applied to the store, in order. The engine gets every
///   cookie, HttpOnly included: its network process needs them, and it keeps them from scripts.
/// - Engine → jar: on the store's change signal, the store is read and compared with what the
///   sync last saw there; additions and changes are stored in the jar, disappearances deleted
///   (unless the jar holds a newer state). Writing back what it just wrote is recognised, so
///   nothing echoes forever.
/// - Start: a union with the jar winning on conflicts (a cookie only the engine has — from a
///   persistent session — is adopted; everything in the jar is pushed).
///
/// All work runs on the main actor, one step at a time, in the order it arrived.
@MainActor
public final class CookieSync {
    /// The app's jar: the source of truth.
    public let jar: CookieJar
    /// The engine's store (shared by every view of one provider).
    public let store: any EngineCookieStore

    /// What the store held after the last step, by cookie identity.
    private var engineSnapshot: [String: Cookie] = [:]
    private var jarObservation: CookieJarObservation?
    private var storeObservation: ObservationToken?
    private var worker: Task<Void, Never>?
    private var stopped = false
    private let events: AsyncStream<Event>
    private let sink: AsyncStream<Event>.Continuation
    /// The last error a step met (the engine refused a cookie); sync carries on regardless.
    public private(set) var lastError: (any Error)?

    private enum Event: Sendable {
        case jar(CookieJar.Change)
        case engineChanged
        case barrier(CheckedContinuation<Void, Never>)
    }

    /// A sync between `jar` and `store`; nothing moves until ``start()``.
    public init(jar: CookieJar, store: any EngineCookieStore) {
        self.jar = jar
        self.store = store
        (events, sink) = AsyncStream.makeStream(of: Event.self)
    }

    /// Reconciles the jar and the store once, then follows both until ``stop()``. A sync is
    /// started once: after `stop()`, make a new one.
    public func start() async {
        guard worker == nil, !stopped else { return }
        let sink = self.sink
        jarObservation = jar.observe { sink.yield(.jar($0)) }
        storeObservation = store.observeChanges { sink.yield(.engineChanged) }
        await reconcileAtStart()
        worker = Task { [weak self, events] in
            for await event in events {
                guard let self else { return }
                await self.handle(event)
            }
        }
    }

    /// Stops following changes. Steps already queued are dropped.
    public func stop() {
        stopped = true
        jarObservation?.cancel()
        storeObservation?.cancel()
        jarObservation = nil
        storeObservation = nil
        worker?.cancel()
        worker = nil
        sink.finish()
    }

    /// Returns once every change queued so far has been applied (tests, and before a load).
    public func flush() async {
        guard worker != nil else { return }
        await withCheckedContinuation { sink.yield(.barrier($0)) }
    }

    /// Makes sure the store holds the jar's cookies for `url` before the engine requests it, so
    /// the first request of the load carries them in its `Cookie` header.
    public func prepareNavigation(to url: URL) async {
        await flush()
        for cookie in jar.cookies(for: url) where !Self.sameState(engineSnapshot[cookie.identity], cookie) {
            await push(cookie)
        }
    }

    /// Reads the store now and takes in what changed there (as if it had signalled a change).
    public func pullFromEngine() async {
        sink.yield(.engineChanged)
        await flush()
    }

    /// The document-start script for a document at `url` (see ``DocumentCookieScript``).
    public func documentStartScript(for url: URL) -> UserScript {
        DocumentCookieScript(for: url, jar: jar).userScript
    }

    // MARK: Steps

    private func reconcileAtStart() async {
        let engineCookies = (try? await store.allCookies()) ?? []
        engineSnapshot = Dictionary(engineCookies.map { ($0.identity, $0) }, uniquingKeysWith: { _, last in last })
        let jarCookies = Dictionary(jar.allCookies.map { ($0.identity, $0) }, uniquingKeysWith: { _, last in last })
        for cookie in engineCookies where jarCookies[cookie.identity] == nil { jar.setCookie(cookie) }
        for cookie in jarCookies.values where !Self.sameState(engineSnapshot[cookie.identity], cookie) { await push(cookie) }
    }

    private func handle(_ event: Event) async {
        switch event {
        case .jar(.stored(let cookie)):
            if !Self.sameState(engineSnapshot[cookie.identity], cookie) { await push(cookie) }
        case .jar(.removed(let cookie)):
            guard let known = engineSnapshot.removeValue(forKey: cookie.identity) else { return }
            do { try await store.deleteCookie(known) } catch { lastError = error }
        case .engineChanged:
            await pull()
        case .barrier(let continuation):
            continuation.resume()
        }
    }

    private func push(_ cookie: Cookie) async {
        do {
            try await store.setCookie(cookie)
            engineSnapshot[cookie.identity] = cookie
        } catch {
            lastError = error
        }
    }

    private func pull() async {
        let current: [Cookie]
        do { current = try await store.allCookies() } catch {
            lastError = error
            return
        }
        let latest = Dictionary(current.map { ($0.identity, $0) }, uniquingKeysWith: { _, last in last })
        let previous = engineSnapshot
        engineSnapshot = latest
        // The snapshot already holds the engine's state, so the jar's echo of these writes is
        // recognised as no change.
        for (identity, cookie) in latest where !Self.sameState(previous[identity], cookie) {
            jar.setCookie(cookie)
        }
        for (identity, gone) in previous where latest[identity] == nil {
            // Delete only what the jar still holds in the state the engine dropped; a newer jar
            // state wins and is pushed again.
            let inJar = jar.allCookies.first { $0.identity == identity }
            if Self.sameState(inJar, gone) {
                jar.deleteCookie(gone)
            } else if let inJar {
                await push(inJar)
            }
        }
    }

    /// Equal for sync purposes: engines keep expiry in whole seconds and may report SameSite
    /// differently, so those differences are not changes.
    static func sameState(_ lhs: Cookie?, _ rhs: Cookie?) -> Bool {
        guard let lhs, let rhs else { return lhs == nil && rhs == nil }
        let seconds = { (date: Date?) in date.map { ($0.timeIntervalSince1970).rounded(.down) } }
        return lhs.name == rhs.name && lhs.value == rhs.value && lhs.domain == rhs.domain && lhs.path == rhs.path
            && lhs.secure == rhs.secure && lhs.httpOnly == rhs.httpOnly && lhs.hostOnly == rhs.hostOnly
            && abs((seconds(lhs.expires) ?? 0) - (seconds(rhs.expires) ?? 0)) <= 1 && (lhs.expires == nil) == (rhs.expires == nil)
    }
}
