import Foundation
import HybridCore
import HybridFixtures
import Testing

/// Two views of one page ask for the camera at the same time, on the real engine: the delegate is
/// asked once, and both pages get the stream its answer allows.
@Suite("Data: concurrent permission requests", .serialized)
@MainActor
struct DataPermissionCoalescingTests {
    /// Holds the camera question until the test lets it go, then allows it.
    final class HoldingDelegate: HybridWebViewDelegate {
        var questions: [PermissionRequest] = []
        var held: [CheckedContinuation<Void, Never>] = []
        func webView(_ webView: HybridWebView, decidePermission request: PermissionRequest) async -> PermissionDecision {
            questions.append(request)
            await withCheckedContinuation { held.append($0) }
            return .allow
        }
        func release() {
            held.forEach { $0.resume() }
            held.removeAll()
        }
    }

    /// Memory `.none`: without coalescing each request would be its own question.
    @Test(arguments: EngineKind.allCases)
    func twoViewsAskingAtOnceGetOneQuestion(_ kind: EngineKind) async throws {
        try kind.require(.permissionPrompts)
        let policy = PermissionPolicy(memory: .none)
        policy.set(.ask, for: kind.origin("app"), kinds: [.camera])
        let rig = try DataRig(kind, pages: ["cam.html": DataPermissionTests.page])
        let delegate = HoldingDelegate()
        let views = try (0..<2).map { _ in try rig.view(permissions: policy) }
        for view in views {
            view.delegate = delegate
            try await view.loadAndWait(kind.url("cam.html"))
        }
        async let first = views[0].page(DataRig.askCamera)
        async let second = views[1].page(DataRig.askCamera)
        // One request is put to the delegate; the other reaches the policy while it is open.
        try await eventually("one question, the other request waiting for it") {
            delegate.questions.count == 1 && policy.waitingCount == 1
        }
        delegate.release()
        let results = try await [first, second]
        await rig.close()
        #expect(results == [.string("live"), .string("live")])
        #expect(delegate.questions.count == 1)
        #expect(policy.askCount == 1)
    }
}
