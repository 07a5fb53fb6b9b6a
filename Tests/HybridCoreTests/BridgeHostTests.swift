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

@Suite("Bridge host wires the router to any engine through the seam")
@MainActor
struct BridgeHostTests {
    static let page = URL(string: "https://app.example.com/index.html")!

    func host(_ capabilities: EngineCapabilities = .fake(), options: BridgeHost.Options = .init()) -> (BridgeHost, ContractEngine<FakeEngineDriver>) {
        var probe = ProbeModule()
        probe.allowedOrigins = ["https://app.example.com"]
        let host = BridgeHost(capabilities: capabilities, modules: [probe], options: options)
        let engine = FakeEngineProvider(capabilities: capabilities).makeFakeEngine()
        host.attach(engine)
        return (host, engine)
    }

    func replyHandler(_ host: BridgeHost) throws -> ScriptMessageHandler.Answerer {
        guard case .reply(let handler) = try #require(host.messageHandlers.first).kind else { throw BridgeFailure.internalError("no reply handler") }
        return handler
    }

    func post(_ host: BridgeHost, _ text: String) async throws -> JSONValue? {
        guard case .string(let reply) = try await replyHandler(host)(ScriptMessage(name: "hybrid", body: .string(text))).reply() else { return nil }
        return try? JSONValue(jsonText: reply)
    }

    @Test(arguments: [(true, true, BridgeTransport.isolatedReply), (true, false, .isolatedCallback),
                      (false, true, .pageReply), (false, false, .pageCallback)])
    func theTransportFollowsTheEngineCapabilities(_ worlds: Bool, _ replies: Bool, _ expected: BridgeTransport) throws {
        let (host, _) = host(.fake(worlds: worlds, replies: replies))
        #expect(host.transport == expected)
        #expect(host.router.nonceMode == (worlds ? .announced : .issued))
        let world: ScriptWorld = worlds ? .named("hybridkit") : .page
        let scripts = host.userScripts
        #expect(scripts.count == 2)
        #expect(scripts.allSatisfy { $0.frames == .mainFrameOnly && $0.injectionTime == .documentStart })
        #expect(scripts[0].world == world && scripts[0].source.contains("__hybridkitTransport"))
        #expect(scripts[1].world == .page && scripts[1].source.contains("window.hybrid"))
        let handler = try #require(host.messageHandlers.first)
        #expect(handler.name == "hybrid" && handler.world == world)
        switch handler.kind {
        case .reply: #expect(replies)
        case .noReply: #expect(!replies)
        }
    }

    @Test func theLegacyTransportNeedsNoHandler() {
        let (host, _) = host(options: .init(transport: .url))
        #expect(host.messageHandlers.isEmpty)
        #expect(host.router.nonceMode == .none)
        #expect(host.userScripts.count == 1)
        #expect(host.userScripts[0].source.contains(#""transport":"url""#))
    }

    @Test func configureAddsToAnExistingConfiguration() {
        let (host, _) = host()
        var configuration = EngineConfiguration(userScripts: [UserScript(source: "1")])
        host.configure(&configuration)
        #expect(configuration.userScripts.count == 3)
        #expect(configuration.messageHandlers.count == 1)
    }

    @Test func callsCarryTheMainFramesOriginFromTheEngine() async throws {
        let (host, engine) = host()
        engine.driver.commit(Self.page)
        #expect(try await post(host, Wire.hello())?["ok"] == true)
        #expect(try await post(host, Wire.call(id: 1, action: "add", params: #"{"a":1,"b":2}"#))?["value"] == 3)
        engine.driver.commit(URL(string: "https://evil.example.net/")!)
        _ = try await post(host, Wire.hello("n2"))
        #expect(try await post(host, Wire.call(id: 2, action: "add", params: #"{"a":1,"b":2}"#, nonce: "n2"))?["error"]?["code"] == "denied")
    }

    @Test func aHelloWithoutANonceIsIssuedOneInItsAnswer() async throws {
        let (host, engine) = host()
        engine.driver.commit(Self.page)
        let ack = try #require(try await post(host, #"{"t":"hello","v":1}"#))
        #expect(ack["ok"] == true && ack["value"]?["modules"] != nil)
        let nonce = try #require(ack["nonce"]?.stringValue)
        #expect(nonce.count >= 20 && host.router.document?.nonce == nonce)
        #expect(try await post(host, Wire.call(id: 1, action: "add", params: #"{"a":1,"b":2}"#, nonce: nonce))?["value"] == 3)
        #expect(try await post(host, Wire.call(id: 2, action: "add", params: #"{"a":1,"b":2}"#))?["error"]?["code"] == "denied")
        // The next document (or one back from the page cache) asks again: a new nonce, and the
        // old one is refused from then on.
        engine.driver.commit(URL(string: "https://app.example.com/next")!)
        let next = try #require(try await post(host, #"{"t":"hello","v":1}"#)?["nonce"]?.stringValue)
        #expect(next != nonce)
        #expect(try await post(host, Wire.call(id: 3, action: "add", params: #"{"a":1,"b":2}"#, nonce: nonce))?["error"]?["code"] == "denied")
        #expect(try await post(host, Wire.call(id: 4, action: "add", params: #"{"a":1,"b":2}"#, nonce: next))?["value"] == 3)
        // An announced nonce is echoed back as it is.
        #expect(try await post(host, Wire.hello("announced"))?["nonce"] == "announced")
    }

    @Test func aDeadContentProcessFailsEveryPendingCall() async throws {
        let (host, engine) = host()
        engine.driver.commit(Self.page)
        _ = try await post(host, Wire.hello())
        let handler = try replyHandler(host)
        async let first = handler(ScriptMessage(name: "hybrid", body: .string(Wire.call(id: 1, action: "wait")))).reply()
        async let second = handler(ScriptMessage(name: "hybrid", body: .string(Wire.call(id: 2, action: "wait")))).reply()
        #expect(await eventually { host.router.pendingCount == 2 })
        engine.terminateContentProcess()
        for reply in await [first, second] {
            guard case .string(let text) = reply else { Issue.record("no reply"); continue }
            #expect(text.contains(#""code":"engine_terminated""#))
        }
        #expect(host.router.pendingCount == 0)
        #expect(host.router.document == nil)
    }

    @Test func withoutWorldsTheNonceIsIssuedToTheTopFrameAtCommit() async throws {
        let (host, engine) = host(.fake(worlds: false))
        engine.driver.commit(Self.page)
        let nonce = try #require(host.router.document?.nonce)
        #expect(await eventually { !engine.driver.evaluated.isEmpty })
        #expect(engine.driver.evaluated[0].world == .page)
        #expect(engine.driver.evaluated[0].script.contains("setNonce(\"\(nonce)\""))
        #expect(try await post(host, Wire.hello("forged"))?["error"]?["code"] == "denied")
        #expect(try await post(host, Wire.call(id: 1, action: "echo", params: "1", nonce: nonce))?["value"] == 1)
    }

    @Test func eventsAreBatchedIntoTheTransportWorldForTheCurrentDocument() async throws {
        let (host, engine) = host()
        engine.driver.commit(Self.page)
        _ = try await post(host, Wire.hello("doc-1"))
        for index in 0..<3 { try host.emit("tick", index) }
        #expect(await eventually { !engine.driver.evaluated.isEmpty })
        #expect(engine.driver.evaluated.count == 1)
        let delivery = engine.driver.evaluated[0]
        #expect(delivery.world == .named("hybridkit"))
        #expect(delivery.script.contains(#"deliver("doc-1", ["#))
        #expect(delivery.script.components(separatedBy: #"\"t\":\"event\""#).count == 4)
        engine.driver.commit(URL(string: "https://app.example.com/next")!)
        #expect(try host.emit("tick", 4) == false)
    }

    @Test func withoutRepliesAnswersAreEvaluatedBack() async throws {
        let (host, engine) = host(.fake(replies: false))
        engine.driver.commit(Self.page)
        guard case .noReply(let receive) = try #require(host.messageHandlers.first).kind else { Issue.record(); return }
        receive(ScriptMessage(name: "hybrid", body: .string(Wire.hello("n9"))))
        #expect(await eventually { engine.driver.evaluated.contains { $0.script.contains(#"\"t\":\"hello\""#) } })
        receive(ScriptMessage(name: "hybrid", body: .string(Wire.call(id: 5, action: "echo", params: "7", nonce: "n9"))))
        #expect(await eventually { engine.driver.evaluated.contains { $0.script.contains(#"\"id\":5"#) } })
        #expect(engine.driver.evaluated.allSatisfy { $0.world == .named("hybridkit") && $0.script.contains(#"deliver("n9""#) })
    }

    @Test func onlyBridgeURLsAreTakenFromNavigation() {
        let (host, _) = host()
        func action(_ url: String, main: Bool = true) -> NavigationAction {
            NavigationAction(request: EngineRequest(url: URL(string: url)!), type: .linkActivated, isMainFrame: main)
        }
        #expect(host.handleNavigation(action("https://app.example.com/a")) == false)
        #expect(host.handleNavigation(action("hybrid://__queue__/1", main: false)) == true)
        #expect(host.handleNavigation(action("HYBRID://probe/add?a=1")) == true)
    }

    @Test func theLegacyQueueIsFetchedFromTheMainFrameAndAnswered() async throws {
        let (host, engine) = host()
        engine.driver.commit(Self.page)
        engine.driver.results["drain()"] = .array([.string(Wire.call(id: 11, action: "add", params: #"{"a":2,"b":3}"#, nonce: nil))])
        let frame = NavigationAction(request: EngineRequest(url: URL(string: "hybrid://__queue__/1")!), type: .other, isMainFrame: false)
        #expect(host.handleNavigation(frame))
        #expect(await eventually { engine.driver.evaluated.contains { $0.script.contains("__hybridkitURL.deliver") } })
        let delivery = try #require(engine.driver.evaluated.first { $0.script.contains("__hybridkitURL.deliver") })
        #expect(delivery.world == .page)
        #expect(delivery.script.contains(#"\"id\":11"#) && delivery.script.contains(#"\"value\":5"#))
    }

    @Test func urlCallsRunFromTheMainFrameOnly() async throws {
        let (host, engine) = host()
        engine.driver.commit(Self.page)
        var completions: [BridgeCompletion] = []
        var log: [BridgeLogEntry] = []
        host.router.onCompletion = { completions.append($0) }
        host.router.logger = { log.append($0) }
        let url = URL(string: "hybrid://probe/add?params=" + #"{"a":4,"b":5}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)!
        #expect(host.handleNavigation(NavigationAction(request: EngineRequest(url: url), type: .linkActivated, isMainFrame: false)))
        #expect(log.last?.code == "denied")
        #expect(host.handleNavigation(NavigationAction(request: EngineRequest(url: url), type: .linkActivated, isMainFrame: true)))
        #expect(await eventually { completions.count == 1 })
        #expect(completions.first?.action == "add" && completions.first?.code == nil)
    }

    @Test(arguments: [
        ("hybrid://device/info", "device", "info", JSONValue.object([:])),
        ("hybrid://m/a?x=1&y=two", "m", "a", JSONValue.object(["x": "1", "y": "two"])),
        ("hybrid://m/a?params=%5B1%2C2%5D", "m", "a", JSONValue.array([1, 2])),
    ] as [(String, String, String, JSONValue)])
    func urlCallsParse(_ text: String, _ module: String, _ action: String, _ params: JSONValue) throws {
        let call = try #require(BridgeURLCall(URL(string: text)!, scheme: "hybrid"))
        #expect(call.module == module && call.action == action && call.params == params)
    }

    @Test(arguments: ["hybrid://", "hybrid://m", "hybrid://m/a?params=%7Bbad", "https://m/a"])
    func unreadableURLCallsAreNotCalls(_ text: String) {
        #expect(BridgeURLCall(URL(string: text)!, scheme: "hybrid") == nil)
    }

    @Test func detachingFailsPendingCallsAndStopsObserving() async throws {
        let (host, engine) = host()
        engine.driver.commit(Self.page)
        _ = try await post(host, Wire.hello())
        let handler = try replyHandler(host)
        async let pending = handler(ScriptMessage(name: "hybrid", body: .string(Wire.call(id: 1, action: "wait")))).reply()
        #expect(await eventually { host.router.pendingCount == 1 })
        host.detach()
        guard case .string(let text) = await pending else { Issue.record(); return }
        #expect(text.contains(#""code":"cancelled""#))
        engine.driver.commit(Self.page)
        #expect(host.router.document == nil)
    }
}
