import Foundation
import HybridCore
import HybridFixtures

/// A real view of one engine with the bridge installed, serving in-memory pages at the engine's
/// test origin (`hybrid-test://HOST/PATH` on WebKit, `https://HOST.hybrid-test.invalid/PATH` on
/// Blink), and recording what the router did.
@MainActor
final class BridgeRig {
    let kind: EngineKind
    let host: BridgeHost
    let engine: any WebEngine
    let navigation: BridgeRigDelegate
    var log: [BridgeLogEntry] = []
    var completions: [BridgeCompletion] = []

    /// The origin the probe module allows: the engine's `app` test origin.
    var appOrigin: OriginPattern { kind.appOrigin }

    /// - Parameter pages: page sources; a `hybrid-test://HOST` URL in them is rewritten to the
    ///   engine's test origin of HOST, so one page set serves both engines.
    init(_ kind: EngineKind, pages: [String: String], modules: [any BridgeModule]? = nil, limits: BridgeRouter.Limits = .init(),
         options: BridgeHost.Options = .init()) throws {
        self.kind = kind
        let provider = try kind.provider()
        host = BridgeHost(capabilities: provider.capabilities, modules: modules ?? [RigModule(kind)], limits: limits, options: options,
                          byteChannelOrigin: provider.byteChannelOrigin)
        let origins = try NSRegularExpression(pattern: "hybrid-test://([a-z0-9-]+)")
        let rewritten = pages.mapValues { text in
            var text = text
            for match in origins.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
                let whole = Range(match.range, in: text)!, name = Range(match.range(at: 1), in: text)!
                text.replaceSubrange(whole, with: kind.origin(String(text[name])))
            }
            return text
        }
        var configuration = kind.pages(TestPages(rewritten))
        host.configure(&configuration)
        engine = try provider.makeEngine(configuration)
        navigation = BridgeRigDelegate(host)
        engine.delegate = navigation
        host.attach(engine)
        host.router.logger = { [weak self] in self?.log.append($0) }
        host.router.onCompletion = { [weak self] in self?.completions.append($0) }
    }

    /// Loads `path` from `origin` and waits for the load and for `hybrid.ready`.
    func open(_ path: String, host origin: String = "app", ready: Bool = true) async throws {
        try await engine.loadAndWait(kind.url(path, host: origin))
        if ready {
            // Ready whatever the origin may call: a foreign origin's runtime is ready with no modules.
            try await engine.waitUntil("window.hybrid !== undefined")
            _ = try await page("await hybrid.ready; return true")
        }
    }

    /// Runs `body` (an async function body) in the page and returns its JSON result.
    /// `attempt(promise)` turns a rejection into `{ok:false, code, message, data}`.
    func page(_ body: String, arguments: [String: JSONValue] = [:]) async throws -> JSONValue {
        try await engine.callAsync(Self.prelude + body, arguments: arguments)
    }

    static let prelude = """
        const attempt = async (p) => { try { return { ok: true, value: await p }; }
          catch (e) { return { ok: false, code: e.code ?? null, name: e.name, message: String(e.message), data: e.data ?? null }; } };

        """

    /// Waits (yielding to the engine) until `condition` holds: the suite's one ``eventually``.
    func until(_ what: String, timeout: Double = 15, _ condition: () -> Bool) async throws {
        try await eventually(what, timeout: timeout, condition)
    }

    func close() {
        host.detach()
        engine.close()
    }
}

/// Routes `hybrid://` navigations to the bridge, allows the rest.
@MainActor
final class BridgeRigDelegate: WebEngineDelegate {
    weak var host: BridgeHost?
    var bridgeNavigations = 0
    init(_ host: BridgeHost) { self.host = host }

    func engine(_ engine: any WebEngine, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        if host?.handleNavigation(action) == true {
            bridgeNavigations += 1
            return .cancel
        }
        return .allow
    }
}

/// Counts how many calls run at once.
actor ConcurrencyGauge {
    private(set) var current = 0
    private(set) var peak = 0
    func enter() { current += 1; peak = max(peak, current) }
    func leave() { current -= 1 }
}

/// Test actions, allowed for the engine's `app` test origin only.
struct RigModule: BridgeModule {
    let name = "probe"
    var allowedOrigins: [OriginPattern]
    var gauge = ConcurrencyGauge()

    init(_ kind: EngineKind) { allowedOrigins = [kind.appOrigin] }

    struct Sum: Codable, Sendable {
        var a: Int
        var b: Int
    }

    var actions: [BridgeAction] {
        let gauge = gauge
        return [
            Action("echo") { (value: JSONValue, _) in value },
            Action("echoText") { (text: String, _) in text },
            Action("add") { (p: Sum, _) in p.a + p.b },
            .immediate("addNow") { (p: Sum, _) in p.a + p.b },
            .immediate("refuseNow") { (_: Empty, _) -> Int in
                throw BridgeFailure.module(code: "not_found", message: "no such thing", data: ["key": "x"])
            },
            Action("reverse") { (bytes: BridgeBytes, _) in BridgeBytes(Data(bytes.data.reversed())) },
            Action("slowEcho") { (value: Int, _) in
                await gauge.enter()
                try? await Task.sleep(for: .milliseconds(2))
                await gauge.leave()
                return value
            },
            Action("steps") { (count: Int, ctx) in
                for step in 1...max(1, count) {
                    await ctx.progress(["step": step, "of": count])
                    try await Task.sleep(for: .milliseconds(5))
                }
                return "done"
            },
            Action("wait") { (_: Empty, ctx) -> Int in
                while !ctx.isCancelled { try await Task.sleep(for: .milliseconds(5)) }
                throw BridgeFailure.cancelled
            },
        ]
    }
}

extension EngineKind {
    /// The `app` test origin as a bridge allowlist entry.
    var appOrigin: OriginPattern { OriginPattern(origin()) }
}
