import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

@Suite("Lifecycle: progress", .serialized)
@MainActor
struct LifecycleProgressTests {
    /// Every value the view published, grouped by navigation.
    @MainActor final class ProgressLog {
        var values: [LoadProgress] = []
        var token: ObservationToken?
        init(_ view: HybridWebView) {
            token = view.observe { [weak self] state in
                if self?.values.last != state.progress { self?.values.append(state.progress) }
            }
        }
        var navigations: [Int: [LoadProgress]] { Dictionary(grouping: values.filter { $0.navigation > 0 }, by: \.navigation) }
        func completes(_ navigation: Int) -> Int { navigations[navigation]?.filter { $0.fraction == 1 }.count ?? 0 }
        func isMonotonic(_ navigation: Int) -> Bool {
            let fractions = navigations[navigation]?.map(\.fraction) ?? []
            return zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 }
        }
        /// Waits until `navigation` reached 1. A second 1.0 for it would come before the next
        /// navigation's values, so the checks at the end (after a later navigation completed) see it.
        func waitForCompletion(of navigation: Int) async throws {
            try await eventually("navigation \(navigation) to complete") { self.completes(navigation) > 0 }
        }
    }

    @Test(arguments: EngineKind.allCases)
    func progressIsMonotonicAndCompletesExactlyOncePerNavigation(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/plain", "<title>Plain</title><p>plain</p>")
        rig.server.route("/hop") { _ in .redirect(to: "/plain?after=redirect") }
        // Held far longer than the test waits for anything: the app supersedes or stops it first.
        let slowRequests = Locked<[String]>([])
        rig.server.route("/slow") { request in
            slowRequests.mutate { $0.append(request.rawQuery ?? "") }
            return ServerResponse.html("<p>slow</p>").delayed(by: .seconds(3))
        }
        let view = try rig.view()
        let log = ProgressLog(view)

        // 1: a plain load; 2: a redirect; 3: a failure (nothing listens on the port).
        try await view.loadAndWait(rig.url("/plain"))
        try await log.waitForCompletion(of: 1)
        try await view.loadAndWait(rig.url("/hop"))
        try await log.waitForCompletion(of: 2)
        let refused = try LoopbackServer()
        let deadURL = refused.url("/gone")
        refused.stop()
        let before = view.engine.url
        view.load(deadURL)
        try await log.waitForCompletion(of: 3)
        // The engine then shows its own error page with a load of its own (WebKit for the failed
        // URL, Chromium a chrome-error document): wait until it is shown, so that it cannot
        // overtake navigation 4 (measured: under load it did, and the next page was the error page).
        try await eventually("the engine's error page") { view.engine.url != before && !view.engine.isLoading }

        // 4: a slow load superseded by another: one navigation, completed once.
        view.load(rig.url("/slow"))
        try await eventually("the slow load to show virtual progress") {
            log.navigations[4]?.contains { $0.fraction > 0.5 && $0.fraction < 1 } == true
        }
        try await view.loadAndWait(rig.url("/plain?superseding"))
        try await log.waitForCompletion(of: 4)

        // Same-document navigations start nothing.
        _ = try await view.engine.evaluate("history.pushState({}, '', '/plain?pushed'); location.hash = 'x'; 0")
        try await eventually("the fragment to reach the view") { view.engine.url?.fragment == "x" }
        #expect(view.engine.url?.fragment == "x")

        // 5: a load stopped by the app still completes.
        view.load(rig.url("/slow?stopped"))
        try await eventually("the server to hold the request") { slowRequests.value.contains("stopped") }
        view.stopLoading()
        try await log.waitForCompletion(of: 5)
        // 6: one more load, so that a late second 1.0 of navigation 5 would be in the log by now.
        try await view.loadAndWait(rig.url("/plain?last"))
        try await log.waitForCompletion(of: 6)

        #expect(log.navigations.keys.sorted() == [1, 2, 3, 4, 5, 6])
        for navigation in 1...5 {
            #expect(log.completes(navigation) == 1, "navigation \(navigation): \(log.navigations[navigation] ?? [])")
            #expect(log.isMonotonic(navigation), "navigation \(navigation): \(log.navigations[navigation] ?? [])")
        }
        // The slow load shows virtual progress while it waits.
        #expect(log.navigations[4]?.contains { $0.fraction > 0.5 && $0.fraction < 1 } == true)
    }
}
