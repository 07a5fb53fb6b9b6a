import Foundation
import HybridTesting
import Testing
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

/// Actions declared `immediate` are answered inside the message callback, with every policy
/// the router applies to other calls.
@Suite("Bridge router answers immediate actions at once")
@MainActor
struct BridgeImmediateTests {
    /// Counts how often its handlers ran, and the completions the router reported.
    @MainActor final class Runs {
        var count = 0
        var completions: [BridgeCompletion] = []
    }

    struct QuickModule: BridgeModule {
        let name = "quick"
        let allowedOrigins: [OriginPattern] = ["https://app.example.com"]
        let runs: Runs

        var actions: [BridgeAction] {
            let runs = runs
            return [
                .immediate("add") { (p: ProbeModule.Sum, _) in
                    runs.count += 1
                    return p.a + p.b
                },
                .immediate("refuse") { (_: Empty, _) -> Int in
                    runs.count += 1
                    throw BridgeFailure.module(code: "not_found", message: "no such thing", data: ["key": "x"])
                },
                .immediate("modules") { (_: Empty, ctx) in ctx.availableModules },
                Action("later") { (_: Empty, _) in "later" },
            ]
        }
    }

    func router(_ runs: Runs) async -> BridgeRouter {
        let router = BridgeRouter(modules: [QuickModule(runs: runs)])
        router.onCompletion = { runs.completions.append($0) }
        router.beginDocument()
        _ = await router.receive(Wire.hello(), origin: appOrigin)
        return router
    }

    func now(_ answer: ScriptAnswer) -> ScriptReply? {
        if case .now(let response) = answer { response } else { nil }
    }

    @Test func anImmediateCallIsAnsweredWithoutWaiting() async throws {
        let runs = Runs()
        let router = await router(runs)
        let response = try #require(now(router.answer(Wire.call(id: 7, module: "quick", action: "add", params: #"{"a":40,"b":2}"#), origin: appOrigin)))
        #expect(Wire.value(response) == 42)
        #expect(Wire.object(response)?["id"] == 7)
        #expect(runs.count == 1)
        #expect(router.pendingCount == 0)
        #expect(runs.completions.map(\.callID) == [7])
        #expect(runs.completions.first?.code == nil && runs.completions.first?.delivered == true)
    }

    @Test func aCallThatMaySuspendIsLeftToItsWork() async throws {
        let router = await router(Runs())
        guard case .later(let work) = router.answer(Wire.call(id: 1, module: "quick", action: "later"), origin: appOrigin) else {
            Issue.record("an async action was answered at once")
            return
        }
        #expect(Wire.value(await work()) == "later")
        #expect(router.pendingCount == 0)
    }

    @Test func errorsKeepTheirCodeAndData() async throws {
        let runs = Runs()
        let router = await router(runs)
        let response = try #require(now(router.answer(Wire.call(id: 2, module: "quick", action: "refuse"), origin: appOrigin)))
        #expect(Wire.code(response) == "not_found")
        #expect(Wire.object(response)?["error"]?["data"] == ["key": "x"])
        #expect(runs.count == 1)
    }

    @Test(arguments: [
        (Wire.call(id: 3, module: "quick", action: "add", params: #"{"a":1,"b":1}"#), evilOrigin, "denied"),
        (Wire.call(id: 3, module: "quick", action: "add", params: #"{"a":"1"}"#), appOrigin, "bad_params"),
        (Wire.call(id: 3, module: "quick", action: "add", params: #"{"a":1,"b":1}"#, nonce: "stale"), appOrigin, "denied"),
    ])
    func refusedCallsNeverRunTheHandler(_ text: String, _ origin: BridgeOrigin, _ code: String) async throws {
        let runs = Runs()
        let router = await router(runs)
        let response = try #require(now(router.answer(text, origin: origin)))
        #expect(Wire.code(response) == code)
        #expect(runs.count == 0)
    }

    @Test func theAsyncEntryPointAndTheContextWorkAsForOtherActions() async {
        let router = await router(Runs())
        let response = await router.receive(Wire.call(id: 4, module: "quick", action: "modules"), origin: appOrigin)
        #expect(Wire.value(response) == ["quick"])
        let denied = await router.receive(Wire.call(id: 5, module: "quick", action: "modules"), origin: evilOrigin)
        #expect(Wire.code(denied) == "denied")
    }

    @Test func aHostAnswersAnImmediateCallInsideTheEngineCallback() async throws {
        let runs = Runs()
        let host = BridgeHost(capabilities: .fake(), modules: [QuickModule(runs: runs)])
        let engine = FakeEngineProvider(capabilities: .fake()).makeFakeEngine()
        host.attach(engine)
        engine.driver.commit(URL(string: "https://app.example.com/")!)
        guard case .reply(let answerer) = try #require(host.messageHandlers.first).kind else { throw BridgeFailure.internalError("no reply handler") }
        _ = await answerer(ScriptMessage(name: "hybrid", body: .string(Wire.hello()))).reply()
        guard case .now(.string(let text)) = answerer(ScriptMessage(name: "hybrid", body: .string(
            Wire.call(id: 6, module: "quick", action: "add", params: #"{"a":2,"b":3}"#)))) else {
            Issue.record("an immediate call was not answered at once")
            return
        }
        #expect(text.contains(#""value":5"#))
        #expect(runs.count == 1)
    }
}
