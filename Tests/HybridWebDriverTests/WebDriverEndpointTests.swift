import Foundation
import HybridCore
import HybridTesting
@testable import HybridWebDriver
import Testing

/// The endpoint over the fake engine: its refusals, capability negotiation, the automation
/// opt-in, errors and the dialog path. Selenium against the real engines: scripts/webdriver-tests.sh.
@Suite("WebDriver endpoint (fake engine)")
@MainActor
struct WebDriverEndpointTests {
    /// The key every atom body contains (the fake answers scripts by a substring of their text).
    static let atoms = "hybridkit.webdriver"

    @MainActor
    final class Made {
        var provider = FakeEngineProvider()
        var views: [HybridWebView] = []
        var ended = 0
    }

    func endpoint(allowsAutomation: Bool = true, made: Made = Made()) -> WebDriverEndpoint {
        WebDriverEndpoint(port: 4444, token: "secret") { _ in
            var configuration = HybridWebViewConfiguration()
            configuration.allowsAutomation = allowsAutomation
            let view = try HybridWebView(provider: made.provider, configuration: configuration)
            made.views.append(view)
            return WebDriverSessionContent(view: view) { made.ended += 1 }
        }
    }

    func request(_ method: String, _ path: String, _ body: JSONValue? = nil, token: String = "secret",
                 host: String = "127.0.0.1:4444", origin: String? = nil) -> WebDriverRequest {
        WebDriverRequest(method: method, path: "/\(token)\(path)", host: host, origin: origin,
                         body: body.map { Data($0.jsonText.utf8) } ?? Data())
    }

    func newSession(_ endpoint: WebDriverEndpoint, _ capabilities: JSONValue = ["alwaysMatch": [:]]) async -> WebDriverResponse {
        await endpoint.respond(to: request("POST", "/session", ["capabilities": capabilities]))
    }

    func error(_ response: WebDriverResponse) -> String? { response.body["value"]?["error"]?.stringValue }

    @Test func refusesRequestsWithoutTheTokenFromAnotherHostOrFromAPage() async {
        let endpoint = endpoint()
        for refused in [request("GET", "/status", token: "wrong"), request("GET", "/status", token: "secre"),
                        WebDriverRequest(method: "GET", path: "/status", host: "127.0.0.1:4444"),
                        request("GET", "/status", host: "evil.example:4444"), request("GET", "/status", host: "127.0.0.1:4445"),
                        request("GET", "/status", host: ""), request("POST", "/session", ["capabilities": [:]], origin: "null"),
                        request("POST", "/session", ["capabilities": [:]], origin: "http://127.0.0.1:8000")] {
            #expect(await endpoint.respond(to: refused).status == 403, "\(refused)")
        }
        #expect(endpoint.sessionCount == 0)
        #expect(await endpoint.respond(to: request("GET", "/status")).status == 200)
        #expect(await endpoint.respond(to: request("GET", "/status", host: "localhost:4444")).status == 200)
    }

    @Test func aViewWhoseConfigurationDoesNotAllowAutomationIsRefused() async {
        let made = Made()
        let endpoint = endpoint(allowsAutomation: false, made: made)
        let response = await newSession(endpoint)
        #expect(response.status == 500 && error(response) == "session not created")
        #expect(endpoint.sessionCount == 0 && made.views.first?.isClosed == true && made.ended == 1)
        #expect(HybridWebViewConfiguration().allowsAutomation == false)
    }

    @Test func negotiatesCapabilitiesAsTheStandardSays() async {
        let endpoint = endpoint()
        let cases: [(JSONValue, Int, String?)] = [
            (["alwaysMatch": ["hybrid:options": ["debug": true]]], 400, "invalid argument"),
            (["alwaysMatch": ["hybrid:options": ["engine": "gecko"]]], 400, "invalid argument"),
            (["alwaysMatch": ["hybrid:options": ["allow": "https://a.example"]]], 400, "invalid argument"),
            (["alwaysMatch": ["pageLoadStrategy": "fast"]], 400, "invalid argument"),
            (["alwaysMatch": ["unknownCapability": 1]], 400, "invalid argument"),
            (["alwaysMatch": ["browserName": "hybridkit"], "firstMatch": [["browserName": "chrome"]]], 400, "invalid argument"),
            (["alwaysMatch": ["browserName": "chrome"]], 500, "session not created"),
            (["firstMatch": [["browserName": "chrome"], ["browserName": "hybridkit"]]], 200, nil),
            (["alwaysMatch": ["goog:chromeOptions": ["args": []], "timeouts": ["implicit": 250]]], 200, nil),
        ]
        for (capabilities, status, code) in cases {
            let response = await newSession(endpoint, capabilities)
            #expect(response.status == status && error(response) == code, "\(capabilities.jsonText) → \(response.body.jsonText)")
        }
        let started = await newSession(endpoint, ["alwaysMatch": ["timeouts": ["implicit": 250], "unhandledPromptBehavior": "accept"]])
        let id = started.body["value"]?["sessionId"]?.stringValue ?? ""
        #expect(started.body["value"]?["capabilities"]?["hybrid:engine"] == "fake")
        #expect(started.body["value"]?["capabilities"]?["unhandledPromptBehavior"] == "accept")
        let timeouts = await endpoint.respond(to: request("GET", "/session/\(id)/timeouts"))
        #expect(timeouts.body["value"]?["implicit"] == 250)
    }

    @Test func answersUnknownCommandsMethodsAndSessionsWithTheirCodes() async {
        let made = Made()
        let endpoint = endpoint(made: made)
        let id = await newSession(endpoint).body["value"]?["sessionId"]?.stringValue ?? ""
        let unknown = await endpoint.respond(to: request("GET", "/session/\(id)/nonsense"))
        #expect(unknown.status == 404 && error(unknown) == "unknown command")
        let method = await endpoint.respond(to: request("DELETE", "/session/\(id)/url"))
        #expect(method.status == 405 && error(method) == "unknown method")
        let badBody = WebDriverRequest(method: "POST", path: "/secret/session/\(id)/url", host: "127.0.0.1:4444", body: Data("[1".utf8))
        #expect(error(await endpoint.respond(to: badBody)) == "invalid argument")
        let relative = await endpoint.respond(to: request("POST", "/session/\(id)/url", ["url": "index.html"]))
        #expect(error(relative) == "invalid argument")
        let resize = await endpoint.respond(to: request("POST", "/session/\(id)/window/rect", ["width": 10]))
        #expect(resize.status == 500 && error(resize) == "unsupported operation")
        #expect(error(await endpoint.respond(to: request("GET", "/session/\(id)/alert/text"))) == "no such alert")
        #expect(await endpoint.respond(to: request("DELETE", "/session/\(id)")).status == 200)
        #expect(made.views.first?.isClosed == true && made.ended == 1)
        let gone = await endpoint.respond(to: request("GET", "/session/\(id)/url"))
        #expect(gone.status == 404 && error(gone) == "invalid session id")
    }

    @Test func anElementTheDocumentNoLongerKnowsIsStaleAndAnotherIsNoSuchElement() async {
        let made = Made()
        let endpoint = endpoint(made: made)
        let id = await newSession(endpoint).body["value"]?["sessionId"]?.stringValue ?? ""
        let driver = made.provider.drivers[0]
        driver.results[Self.atoms] = ["ok": true, "value": [[WebDriverAtoms.elementKey: "doc1-1"]]]
        let found = await endpoint.respond(to: request("POST", "/session/\(id)/element", ["using": "css selector", "value": "h1"]))
        #expect(found.body["value"]?[WebDriverAtoms.elementKey] == "doc1-1")
        driver.results[Self.atoms] = ["ok": false, "error": "unknown element", "message": "doc1-1"]
        #expect(error(await endpoint.respond(to: request("GET", "/session/\(id)/element/doc1-1/text"))) == "stale element reference")
        driver.results[Self.atoms] = ["ok": false, "error": "unknown element", "message": "never-issued"]
        #expect(error(await endpoint.respond(to: request("GET", "/session/\(id)/element/never-issued/text"))) == "no such element")
        driver.results[Self.atoms] = ["ok": true, "value": []]
        let none = await endpoint.respond(to: request("POST", "/session/\(id)/element", ["using": "xpath", "value": "//nav"]))
        #expect(none.status == 404 && error(none) == "no such element")
        driver.results[Self.atoms] = ["ok": false, "error": "javascript error", "message": "TypeError: x is undefined"]
        let thrown = await endpoint.respond(to: request("POST", "/session/\(id)/execute/sync", ["script": "return x.y", "args": []]))
        #expect(thrown.status == 500 && error(thrown) == "javascript error")
    }

    @Test func aDialogTheClickOpensEndsTheClickAndTheNextCommandMeetsIt() async throws {
        let made = Made()
        let endpoint = endpoint(made: made)
        let id = await newSession(endpoint).body["value"]?["sessionId"]?.stringValue ?? ""
        let driver = made.provider.drivers[0]
        driver.holdsScriptCalls = true   // the page is blocked by its alert: the click's script never returns
        async let click = endpoint.respond(to: request("POST", "/session/\(id)/element/e1/click", [:]))
        try await Task.sleep(nanoseconds: 20_000_000)
        var answer: ScriptDialogResult?
        driver.openDialog(ScriptDialog(kind: .confirm, message: "Proceed?")) { answer = $0 }
        #expect(await click.status == 200)
        #expect(await endpoint.respond(to: request("GET", "/session/\(id)/alert/text")).body["value"] == "Proceed?")
        // The default prompt behaviour, dismiss and notify: the dialog is dismissed and the command fails.
        let next = await endpoint.respond(to: request("GET", "/session/\(id)/title"))
        #expect(error(next) == "unexpected alert open" && next.body["value"]?["data"]?["text"] == "Proceed?")
        #expect(answer == .cancelled)
        #expect(error(await endpoint.respond(to: request("POST", "/session/\(id)/alert/accept", [:]))) == "no such alert")
        driver.settleScriptCalls(with: .success(.null))
    }

    @Test func anAsyncScriptThatNeverCallsBackTimesOut() async {
        let made = Made()
        let endpoint = endpoint(made: made)
        let id = await newSession(endpoint, ["alwaysMatch": ["timeouts": ["script": 50]]]).body["value"]?["sessionId"]?.stringValue ?? ""
        made.provider.drivers[0].holdsScriptCalls = true
        let response = await endpoint.respond(to: request("POST", "/session/\(id)/execute/async", ["script": "", "args": []]))
        #expect(response.status == 500 && error(response) == "script timeout")
        made.provider.drivers[0].settleScriptCalls(with: .success(.null))
    }
}
