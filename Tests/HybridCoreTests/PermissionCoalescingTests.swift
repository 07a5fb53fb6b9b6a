import Foundation
import HybridCore
import HybridTesting
import Testing

/// Concurrent permission requests for the same origin and kind ask the delegate once: the ones
/// that arrive while it is being asked wait for that answer (``PermissionPolicy/decide(_:ask:)``).
@Suite("Permission requests coalesce (fake driver)")
@MainActor
struct PermissionCoalescingTests {
    static let app = DataPolicyTests.app
    static let other = DataPolicyTests.other

    func request(_ kinds: Set<PermissionKind>, _ origin: String = app) -> PermissionRequest {
        PermissionRequest(kinds: kinds, origin: BridgeOrigin(url: URL(string: origin)!)!)
    }

    /// A delegate's question held until the test answers it.
    @MainActor
    final class HeldQuestions {
        var questions: [PermissionRequest] = []
        var answers: [CheckedContinuation<PermissionDecision, Never>] = []
        func ask(_ request: PermissionRequest) async -> PermissionDecision {
            questions.append(request)
            return await withCheckedContinuation { answers.append($0) }
        }
        func answer(_ decision: PermissionDecision) {
            let open = answers
            answers.removeAll()
            open.forEach { $0.resume(returning: decision) }
        }
        /// Waits until `count` questions are open (at most 2 s; the expectations after it fail otherwise).
        func waitForQuestions(_ count: Int) async {
            _ = await eventually { self.answers.count >= count }
        }
    }

    /// Two views of one page sharing a policy: both ask for the camera at once; the delegate is
    /// asked once and all get its allow, whatever the memory (also `.none`). A deny is shared only
    /// through memory: with `.none` each waiting request then asks for itself (the deny may have
    /// been a closing view's default, never the user's answer to it).
    @Test(arguments: [PermissionMemory.session, .none], [PermissionDecision.allow, .deny])
    func twoViewsAskingAtOnceShareOneQuestion(_ memory: PermissionMemory, _ answer: PermissionDecision) async throws {
        let policy = PermissionPolicy(memory: memory)
        policy.set(.ask, for: Self.app, kinds: [.camera])
        let provider = FakeEngineProvider(capabilities: [.scriptWorlds, .messageReplies, .permissionPrompts])
        var configuration = HybridWebViewConfiguration()
        configuration.permissions = policy
        let views = try (0..<2).map { _ in try HybridWebView(provider: provider, configuration: configuration) }
        defer { views.forEach { $0.close() } }
        let delegate = DataPolicyTests.Delegate()
        delegate.holds = true
        views.forEach { $0.delegate = delegate }
        let first = Task { await provider.drivers[0].requestPermission([.camera], from: Self.app) }
        let second = Task { await provider.drivers[1].requestPermission([.camera], from: Self.app) }
        let third = Task { await provider.drivers[1].requestPermission([.camera], from: Self.app) }
        // The barrier: the first request is held at the delegate and the other two wait on it in
        // the policy, so no further question can still be on its way.
        #expect(await eventually { !delegate.held.isEmpty && policy.waitingCount == 2 })
        #expect(delegate.permissionQuestions == 1)
        #expect(policy.askCount == 1)
        #expect(policy.waitingCount == 2)
        delegate.release()
        // The fake delegate answers allow; `deny` is checked through the policy below.
        #expect(await [first.value, second.value, third.value] == [.allow, .allow, .allow])
        #expect(delegate.permissionQuestions == 1, "one question for the three requests")

        let held = HeldQuestions()
        let direct = PermissionPolicy(memory: memory)
        direct.set(.ask, for: Self.app, kinds: [.microphone])
        let requests = (0..<3).map { _ in Task { await direct.decide(request([.microphone]), ask: { await held.ask($0) }) } }
        await held.waitForQuestions(1)
        #expect(await eventually { direct.waitingCount == 2 }, "the other two wait on the open question")
        #expect(held.questions.count == 1)
        #expect(direct.waitingCount == 2)
        held.answer(answer)
        let asksAgain = memory == .none && answer == .deny
        if asksAgain {
            await held.waitForQuestions(2)
            #expect(held.questions.count == 3, "each waiting request asks for itself")
            held.answer(answer)
        }
        var decisions: [PermissionDecision] = []
        for request in requests { decisions.append(await request.value) }
        #expect(decisions == [answer, answer, answer])
        #expect(direct.waitingCount == 0)
        #expect(held.questions.count == (asksAgain ? 3 : 1))
    }

    /// A request for camera and microphone arriving while the camera alone is asked waits for
    /// that answer and asks only for the microphone; after a denied camera (memory `.none`) it
    /// asks for itself, the camera included.
    @Test func anOverlappingRequestAsksOnlyForWhatIsNotBeingAsked() async {
        for cameraAnswer in [PermissionDecision.allow, .deny] {
            let policy = PermissionPolicy(memory: .none)
            policy.set(.ask, for: Self.app, kinds: [.camera, .microphone])
            let held = HeldQuestions()
            let camera = Task { await policy.decide(request([.camera]), ask: { await held.ask($0) }) }
            await held.waitForQuestions(1)
            let both = Task { await policy.decide(request([.camera, .microphone]), ask: { await held.ask($0) }) }
            #expect(await eventually { policy.waitingCount == 1 }, "the overlapping request waits on the camera's question")
            #expect(held.questions.map(\.kinds) == [[.camera]])
            held.answer(cameraAnswer)
            #expect(await camera.value == cameraAnswer)
            await held.waitForQuestions(1)
            #expect(held.questions.map(\.kinds) == [[.camera], cameraAnswer == .allow ? [.microphone] : [.camera, .microphone]])
            held.answer(cameraAnswer)
            #expect(await both.value == cameraAnswer)
            #expect(held.questions.count == 2)
        }
    }

    /// Hostile: another origin, or another kind, is never answered by a question about something
    /// else; it is asked on its own (or denied by its rule) while the first question is open.
    @Test func anotherOriginOrKindIsNotAnsweredByTheOpenQuestion() async {
        let policy = PermissionPolicy(memory: .session)
        policy.set(.ask, for: Self.app, kinds: [.camera, .geolocation])
        policy.set(.ask, for: Self.other, kinds: [.camera])
        let held = HeldQuestions()
        let camera = Task { await policy.decide(request([.camera]), ask: { await held.ask($0) }) }
        await held.waitForQuestions(1)
        let foreign = Task { await policy.decide(request([.camera], Self.other), ask: { await held.ask($0) }) }
        let position = Task { await policy.decide(request([.geolocation]), ask: { await held.ask($0) }) }
        let unlisted = await policy.decide(request([.microphone]), ask: { await held.ask($0) })
        await held.waitForQuestions(3)
        #expect(unlisted == .deny)
        #expect(Set(held.questions.map { "\($0.origin) \($0.kinds.map(\.rawValue).sorted())" }) == [
            "\(Self.app) [\"camera\"]", "\(Self.other) [\"camera\"]", "\(Self.app) [\"geolocation\"]",
        ])
        held.answer(.allow)
        #expect(await [camera.value, foreign.value, position.value] == [.allow, .allow, .allow])
        #expect(policy.askCount == 3)
    }
}
