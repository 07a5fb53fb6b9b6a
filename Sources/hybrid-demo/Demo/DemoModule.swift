import Foundation
import HybridCore

/// What a tour page reports: its feature, whether the check passed, a figure, and details.
struct DemoPageReport: Codable, Sendable {
    var feature: String
    var ok: Bool
    var figure: String
    var details: JSONValue?
}

/// The app's side of the tour as pages see it (`hybrid.call('demo', 'state')`): what native
/// observed — crashes, white screens, intercepted calls, hand-offs — and values pages keep
/// across reloads and back navigations.
struct DemoState: Codable, Sendable {
    /// The loopback origin with the cookie, redirect and echo routes (`http://127.0.0.1:PORT`).
    var origin: String
    var crashes = 0
    /// When the demo killed its content process (ms since 1970, as `Date.now()`).
    var crashedAt: Double = 0
    /// White screens the container reported to the app's delegate (reason codes).
    var whiteScreens: [String] = []
    /// The params of the last `demoapp://demo/intercepted` navigation.
    var intercepted: [String: String]?
    /// The last URL the container handed to the app (payment and system schemes).
    var external: String?
    /// Calls of `count` whose Swift handler saw the page cancel them.
    var cancelledCalls = 0
    /// The page is shown in a view taken from the pool.
    var pooled = false
    var flags: [String: String] = [:]
}

/// What native does for the tour's pages; ``DemoTour`` implements it.
@MainActor
protocol DemoHost: AnyObject, Sendable {
    var state: DemoState { get set }
    func pageReported(_ report: DemoPageReport)
    /// Emits `count` events named `name` to the current page; returns how many were delivered.
    func emit(_ name: String, count: Int) -> Int
    /// Kills the current page's web content process (shortly after the call returns).
    func crash()
    /// The container's snapshot of the current page, described.
    func snapshot() async throws -> DemoSnapshot
    /// The results so far, for the home page.
    var results: [DemoResult] { get }
}

struct DemoSnapshot: Codable, Sendable {
    var width: Int
    var height: Int
    var bytes: Int
}

/// `demo`: the bridge module of the tour. Pages report through it and ask native to act.
struct DemoModule: BridgeModule {
    struct Count: Codable, Sendable {
        var to: Int
        var intervalMs: Int
    }
    struct Emit: Codable, Sendable {
        var name: String
        var count: Int
    }
    struct Remember: Codable, Sendable {
        var key: String
        var value: String
    }

    let name = "demo"
    let allowedOrigins: [OriginPattern]
    let host: any DemoHost

    var actions: [BridgeAction] {
        [
            Action("report") { (report: DemoPageReport, _) in
                await host.pageReported(report)
                return BridgeEmpty()
            },
            Action("state") { (_: Empty, _) in await host.state },
            Action("remember") { (item: Remember, _) in
                await MainActor.run { host.state.flags[item.key] = item.value }
                return BridgeEmpty()
            },
            Action("count") { (count: Count, context) in
                for done in 1...max(1, min(count.to, 10_000)) {
                    do {
                        try await Task.sleep(nanoseconds: UInt64(max(0, count.intervalMs)) * 1_000_000)
                        try context.checkCancellation()
                    } catch {
                        await MainActor.run { host.state.cancelledCalls += 1 }
                        throw BridgeFailure.cancelled
                    }
                    await context.progress(["done": done])
                }
                return ["counted": count.to]
            },
            Action("emit") { (emit: Emit, _) in ["delivered": await host.emit(emit.name, count: emit.count)] },
            Action("crash") { (_: Empty, _) in
                await host.crash()
                return BridgeEmpty()
            },
            Action("snapshot") { (_: Empty, _) in try await host.snapshot() },
            Action("intercepted") { (params: [String: String], _) in
                await MainActor.run { host.state.intercepted = params }
                return BridgeEmpty()
            },
            Action("results") { (_: Empty, _) in await host.results },
        ]
    }
}
