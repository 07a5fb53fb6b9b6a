import Foundation
import Testing
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

@Suite("Bridge router answers calls and enforces its policies")
@MainActor
struct BridgeRouterTests {
    @Test func aCallReachesItsTypedHandlerAndReturnsItsResult() async {
        let router = await makeRouter()
        let response = await router.receive(Wire.call(id: 1, action: "add", params: #"{"a":20,"b":22}"#), origin: appOrigin)
        #expect(Wire.object(response)?["ok"] == true)
        #expect(Wire.object(response)?["id"] == 1)
        #expect(Wire.value(response) == 42)
        #expect(router.pendingCount == 0)
    }

    @Test func valuesRoundTripAsJSON() async {
        let router = await makeRouter()
        let params = #"{"s":"é\n\u2028\"","n":[1,2.5,-3e-7],"b":true,"z":null,"o":{"k":{}}}"#
        let response = await router.receive(Wire.call(id: 2, action: "echo", params: params), origin: appOrigin)
        #expect(Wire.value(response) == (try? JSONValue(jsonText: params)))
    }

    @Test(arguments: [
        (Wire.call(id: 3, module: "ghost", action: "x"), "unknown_module"),
        (Wire.call(id: 3, action: "fly"), "unknown_action"),
        (Wire.call(id: 3, action: "add", params: #"{"a":"1","b":2}"#), "bad_params"),
        (Wire.call(id: 3, action: "refuse"), "not_found"),
        (Wire.call(id: 3, action: "crash"), "internal"),
        (Wire.call(id: 3, action: "nan"), "internal"),
        ("{oops", "malformed"),
    ])
    func failuresCarryStableCodes(_ text: String, _ code: String) async {
        let router = await makeRouter()
        let response = await router.receive(text, origin: appOrigin)
        #expect(Wire.object(response)?["ok"] == false)
        #expect(Wire.code(response) == code)
    }

    @Test func moduleErrorsKeepTheirData() async {
        let router = await makeRouter()
        let response = await router.receive(Wire.call(id: 4, action: "refuse"), origin: appOrigin)
        #expect(Wire.object(response)?["error"]?["data"] == ["key": "x"])
        #expect(Wire.object(response)?["id"] == 4)
    }

    @Test func originsNotOnTheAllowlistAreDeniedAndLogged() async {
        let log = LogBook()
        let router = await makeRouter(log: log)
        for origin in [evilOrigin, BridgeOrigin(scheme: "http", host: "app.example.com"),
                       BridgeOrigin(scheme: "https", host: "app.example.com", port: 8443), nil] {
            let response = await router.receive(Wire.call(id: 5, action: "add", params: #"{"a":1,"b":1}"#), origin: origin)
            #expect(Wire.code(response) == "denied")
        }
        #expect(log.entries.filter { $0.code == "denied" }.count == 4)
        #expect(log.entries.first?.origin == evilOrigin)
        #expect(log.entries.first?.description.contains("evil.example.net") == true)
    }

    @Test func deniedOriginsLearnNothingAboutParams() async {
        let router = await makeRouter()
        let response = await router.receive(Wire.call(id: 6, action: "add", params: "[]"), origin: evilOrigin)
        #expect(Wire.code(response) == "denied")
    }

    @Test func aCallWithAnotherNonceIsDenied() async {
        let log = LogBook()
        let router = await makeRouter(log: log)
        let stale = await router.receive(Wire.call(id: 7, action: "echo", nonce: "old"), origin: appOrigin)
        let missing = await router.receive(Wire.call(id: 8, action: "echo", nonce: nil), origin: appOrigin)
        #expect(Wire.code(stale) == "denied" && Wire.code(missing) == "denied")
        #expect(log.codes.filter { $0 == "denied" }.count == 2)
    }

    @Test func aNewDocumentInvalidatesTheOldNonceAndDropsItsReplies() async {
        let router = await makeRouter()
        async let pending = router.receive(Wire.call(id: 9, action: "wait"), origin: appOrigin)
        #expect(await eventually { router.pendingCount == 1 })
        router.beginDocument()
        #expect(await pending == .dropped)
        _ = await router.receive(Wire.hello("n2"), origin: appOrigin)
        let old = await router.receive(Wire.call(id: 10, action: "echo", nonce: "n1"), origin: appOrigin)
        #expect(Wire.code(old) == "denied")
        let current = await router.receive(Wire.call(id: 11, action: "echo", params: "1", nonce: "n2"), origin: appOrigin)
        #expect(Wire.value(current) == 1)
    }

    @Test func aHelloWithANewNonceWithoutACommitStillStartsANewDocument() async {
        let router = await makeRouter()
        let first = router.document
        async let pending = router.receive(Wire.call(id: 12, action: "wait"), origin: appOrigin)
        #expect(await eventually { router.pendingCount == 1 })
        _ = await router.receive(Wire.hello("n3"), origin: appOrigin)
        #expect(await pending == .dropped)
        #expect(router.document?.generation != first?.generation)
        #expect(router.document?.nonce == "n3")
    }

    @Test func aHelloThatOutrunsItsCommitKeepsItsDocument() async {
        let router = await makeRouter()
        _ = await router.receive(Wire.hello("n2"), origin: appOrigin)   // new document, commit not yet seen
        let early = router.document
        router.beginDocument()                                          // its commit arrives late
        #expect(router.document == early)
        #expect(Wire.value(await router.receive(Wire.call(id: 1, action: "echo", params: "1", nonce: "n2"), origin: appOrigin)) == 1)
        router.beginDocument()                                          // the next document's commit
        #expect(router.document?.nonce == nil)
        #expect(Wire.code(await router.receive(Wire.call(id: 2, action: "echo", nonce: "n2"), origin: appOrigin)) == "denied")
    }

    @Test func helloIsAcknowledgedWithVersionAndTheOriginsModules() async {
        let router = BridgeRouter(modules: [ProbeModule(), DeviceModule(allowedOrigins: [.any])])
        router.beginDocument()
        let ack = Wire.object(await router.receive(Wire.hello("x"), origin: evilOrigin))
        #expect(ack?["ok"] == true)
        #expect(ack?["value"]?["version"] == .string(BridgeRouter.version))
        #expect(ack?["value"]?["modules"] == ["device"])
    }

    @Test func issuedNonceModeRefusesHellos() async {
        let router = BridgeRouter(modules: [ProbeModule()], nonceMode: .issued)
        let document = router.beginDocument()
        let nonce = try! #require(document.nonce)
        #expect(nonce.count > 16)
        #expect(Wire.code(await router.receive(Wire.hello("forged"), origin: appOrigin)) == "denied")
        #expect(router.document?.nonce == nonce)
        let ok = await router.receive(Wire.call(id: 1, action: "echo", params: "2", nonce: nonce), origin: appOrigin)
        #expect(Wire.value(ok) == 2)
        #expect(router.beginDocument().nonce != nonce)
    }

    @Test func mainFrameSourcedMessagesSkipTheNonceButNotTheOrigin() async {
        let router = await makeRouter()
        let ok = await router.receive(Wire.call(id: 13, action: "echo", params: "3", nonce: nil), origin: appOrigin, source: .mainFrame)
        #expect(Wire.value(ok) == 3)
        let denied = await router.receive(Wire.call(id: 14, action: "echo", nonce: nil), origin: evilOrigin, source: .mainFrame)
        #expect(Wire.code(denied) == "denied")
    }

    @Test func noDocumentMeansDenied() async {
        let router = BridgeRouter(modules: [ProbeModule()])
        #expect(Wire.code(await router.receive(Wire.call(id: 1, action: "echo"), origin: appOrigin)) == "denied")
    }

    @Test func aDuplicateInFlightIDIsRefused() async {
        let router = await makeRouter()
        async let first = router.receive(Wire.call(id: 15, action: "wait", timeout: 100), origin: appOrigin)
        #expect(await eventually { router.pendingCount == 1 })
        let second = await router.receive(Wire.call(id: 15, action: "echo"), origin: appOrigin)
        #expect(Wire.code(second) == "malformed")
        #expect(Wire.code(await first) == "timeout")
    }
}
