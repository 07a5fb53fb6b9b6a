import Foundation
import HybridCore
import HybridFixtures
import Testing

@Suite("Engine scripts", .serialized)
@MainActor
struct EngineScriptTests {
    @Test(arguments: EngineKind.allCases)
    func evaluateReturnsJSONValues(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine()
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<title>T</title><p id=p>hello</p>")
        #expect(try await engine.evaluate("1 + 2") == .number(3))
        #expect(try await engine.evaluate("document.getElementById('p').textContent") == .string("hello"))
        #expect(try await engine.evaluate("({a: [1, true, null], b: 'x'})") == ["a": [1, true, nil], "b": "x"])
        #expect(try await engine.evaluate("undefined") == .null)
    }

    @Test(arguments: EngineKind.allCases)
    func javaScriptExceptionsSurfaceWithTheirMessage(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine()
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<p>x</p>")
        do {
            _ = try await engine.evaluate("throw new TypeError('boom 42')")
            Issue.record("expected a JavaScript error")
        } catch let HybridError.engine(.javaScript(message)) {
            #expect(message.contains("boom 42"))
        }
        do {
            _ = try await engine.evaluate("noSuchVariable.x")
            Issue.record("expected a JavaScript error")
        } catch let HybridError.engine(.javaScript(message)) {
            #expect(message.contains("noSuchVariable"))
        }
    }

    @Test(arguments: EngineKind.allCases)
    func callAsyncAwaitsPromisesWithTypedArguments(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine()
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<p>x</p>")
        let value = try await engine.callAsync(
            "return await new Promise(r => setTimeout(() => r({sum: a + b.n, s: typeof s, s2: s}), 20));",
            arguments: ["a": 2, "b": ["n": 40], "s": "quote\"and\\slash"])
        #expect(value == ["sum": 42, "s": "string", "s2": "quote\"and\\slash"])
    }

    @Test(arguments: EngineKind.allCases)
    func callAsyncRejectionIsATypedError(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine()
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<p>x</p>")
        await #expect(throws: HybridError.self) {
            _ = try await engine.callAsync("throw new Error('rejected-7')")
        }
        do {
            _ = try await engine.callAsync("return Promise.reject(new Error('rejected-8'))")
            Issue.record("expected a rejection")
        } catch let HybridError.engine(.javaScript(message)) {
            #expect(message.contains("rejected-8"))
        }
    }

    @Test(arguments: EngineKind.allCases)
    func namedWorldIsIsolatedFromThePage(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine()
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<script>window.pageSecret = 'p'</script><p id=p>shared dom</p>")
        let world = ScriptWorld.named("isolated-test")
        #expect(try await engine.evaluate("typeof window.pageSecret", in: world) == .string("undefined"))
        #expect(try await engine.evaluate("document.getElementById('p').textContent", in: world) == .string("shared dom"))
        _ = try await engine.evaluate("window.worldSecret = 1", in: world)
        #expect(try await engine.evaluate("typeof window.worldSecret") == .string("undefined"))
        #expect(try await engine.evaluate("window.worldSecret", in: world) == 1)
    }

    @Test(arguments: EngineKind.allCases)
    func unserialisableResultIsATypedError(_ kind: EngineKind) async throws {
        let engine = try kind.makeEngine()
        defer { engine.close() }
        try await engine.loadHTMLAndWait("<p>x</p>")
        await #expect(throws: HybridError.self) {
            _ = try await engine.evaluate("(function f() {})")
        }
    }
}
