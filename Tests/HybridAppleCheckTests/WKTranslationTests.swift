import Foundation
import HybridCore
@testable import HybridWK
import Testing
import WebKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The WKWebView adapter's pure translations, run on Linux against the WebKit stand-in. Only code
// that touches no Apple symbol at run time is exercised here (the stand-ins' declarations never
// run).

@Suite("User scripts keep WebKit's URL pattern semantics when wrapped")
struct WKUserScriptPatternTests {
    func matches(_ pattern: String, _ url: String) throws -> Bool {
        let regex = try NSRegularExpression(pattern: WKUserContent.regex(for: pattern))
        return regex.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil
    }

    @Test func hostWildcardMatchesSubdomainsAndTheHostItself() throws {
        #expect(try matches("https://*.example.com/*", "https://example.com/a"))
        #expect(try matches("https://*.example.com/*", "https://m.shop.example.com/a?b"))
        #expect(try !matches("https://*.example.com/*", "https://notexample.com/"))
        #expect(try !matches("https://*.example.com/*", "http://example.com/"))
    }

    @Test func patternsAreAnchoredAndLiteral() throws {
        #expect(try !matches("https://example.com/*", "https://evil.com/?https://example.com/"))
        #expect(try !matches("https://a.b/*", "https://aXb/"))
        #expect(try matches("hybrid-app://app/*", "hybrid-app://app/index.html"))
    }

    @Test func scriptsWithoutListsAreNotWrapped() {
        #expect(WKUserContent.guarded("var a = 1;", allow: [], block: []) == "var a = 1;")
    }

    @Test func wrappedScriptsKeepTheirSourceVerbatimInABlock() {
        let wrapped = WKUserContent.guarded("var a = 1;", allow: ["https://*/*"], block: [])
        #expect(wrapped.hasPrefix("if ("))
        #expect(wrapped.contains("\nvar a = 1;\n}"))
    }
}

@Suite("Script results become JSON as WebKitGTK's do")
struct WKScriptValueTests {
    @Test func scalarsAndContainers() throws {
        #expect(try WKScriptValue.json(from: nil) == .null)
        #expect(try WKScriptValue.json(from: NSNull()) == .null)
        #expect(try WKScriptValue.json(from: "text") == .string("text"))
        #expect(try WKScriptValue.json(from: NSNumber(value: 1.5)) == .number(1.5))
        #expect(try WKScriptValue.json(from: NSNumber(value: true)) == .bool(true))
        let nested: [String: Any] = ["a": [NSNumber(value: 1), "b"], "c": NSNull()]
        #expect(try WKScriptValue.json(from: nested) == .object(["a": .array([.number(1), .string("b")]), "c": .null]))
    }

    @Test func undefinedBoxedByTheCompletionFormsIsNull() throws {
        // WebKit's Result-based forms report `undefined` as `.success(Optional<Any>.none as Any)`.
        let undefined: Any = Optional<Any>.none as Any
        #expect(try WKScriptValue.json(from: undefined) == .null)
        #expect(try WKScriptValue.json(from: Optional<Any>.some("text") as Any) == .string("text"))
        #expect(try WKScriptValue.jsonResult(.success(undefined)).get() == .null)
        #expect(try WKScriptValue.jsonResult(.success(["a": NSNumber(value: 1)])).get() == .object(["a": .number(1)]))
    }

    @Test func completionFailuresBecomeTypedErrors() {
        let exception = NSError(domain: WKErrorDomain, code: WKError.Code.javaScriptExceptionOccurred.rawValue,
                                userInfo: ["WKJavaScriptExceptionMessage": "TypeError: y"])
        #expect(throws: HybridError.engine(.javaScript(message: "TypeError: y"))) {
            try WKScriptValue.jsonResult(.failure(exception)).get()
        }
        #expect(throws: HybridError.self) { try WKScriptValue.jsonResult(.success(NSObject())).get() }
    }

    @Test func valuesWithoutJSONFormAreRefused() {
        #expect(throws: HybridError.self) { try WKScriptValue.json(from: NSObject()) }
    }

    @Test func messageBodiesKeepStringsAsIs() {
        #expect(WKScriptValue.messageBody("{\"a\":1}") == .string("{\"a\":1}"))
        #expect(WKScriptValue.messageBody(["a": NSNumber(value: 2)]) == .json(#"{"a":2}"#))
    }

    @Test func javaScriptExceptionsCarryTheirMessage() {
        let exception = NSError(domain: WKErrorDomain, code: WKError.Code.javaScriptExceptionOccurred.rawValue,
                                userInfo: ["WKJavaScriptExceptionMessage": "ReferenceError: x"])
        #expect(WKScriptValue.hybridError(exception) as? HybridError == .engine(.javaScript(message: "ReferenceError: x")))
        let crashed = NSError(domain: WKErrorDomain, code: WKError.Code.webContentProcessTerminated.rawValue)
        #expect(WKScriptValue.hybridError(crashed) as? HybridError == .engine(.contentProcessTerminated(.crashed)))
        let other = NSError(domain: NSURLErrorDomain, code: -1001)
        #expect((WKScriptValue.hybridError(other) as? HybridError)?.code == "engine")
    }
}

@Suite("Requests and cookies cross to Foundation unchanged")
struct WKFoundationBridgingTests {
    @Test func requestKeepsMethodHeadersAndBody() throws {
        let request = URLRequest(EngineRequest(
            url: URL(string: "https://example.com/form")!, method: "POST",
            headers: [("Content-Type", "application/json"), ("X-Token", "t")], body: Data("{}".utf8)))
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "x-token") == "t")
        #expect(request.bodyData == Data("{}".utf8))
        let back = try #require(EngineRequest(request))
        #expect(back.method == "POST" && back.header("content-type") == "application/json")
    }

    @Test func hostOnlyAndDomainCookiesKeepTheirScope() throws {
        let hostOnly = Cookie(name: "a", value: "1", domain: "m.example.com", secure: true, httpOnly: true, hostOnly: true)
        let domain = Cookie(name: "b", value: "2", domain: "example.com", hostOnly: false)
        let hostOnlyBack = Cookie(try #require(hostOnly.webKitCookie))
        let domainBack = Cookie(try #require(domain.webKitCookie))
        #expect(hostOnlyBack.hostOnly && hostOnlyBack.secure && hostOnlyBack.httpOnly && hostOnlyBack.domain == "m.example.com")
        #expect(!domainBack.hostOnly && domainBack.domain == "example.com")
    }
}
