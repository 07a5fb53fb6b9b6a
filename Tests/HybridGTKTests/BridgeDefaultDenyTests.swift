import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// Default deny, end to end: a page that sends the top frame to an origin the app did not allow
/// gets nothing from any built-in module there — not `device`, not even `hybrid.info` — while the
/// same calls from the allowed origin are answered (so the denial is the origin, not the call).
@Suite("Bridge: built-in modules deny by default", .serialized)
@MainActor
struct BridgeDefaultDenyTests {
    /// Calls every built-in module once and returns `ok` or the error's code per module, and the
    /// modules the runtime was told it may use.
    static let probe = """
        await hybrid.ready;
        const probe = async (module, action, params) => {
          try { await hybrid.call(module, action, params, { timeout: 5000 }); return 'ok'; } catch (e) { return e.code || String(e); }
        };
        return {
          origin: location.origin,
          hybridInfo: await probe('hybrid', 'info', {}),
          hybridPing: await probe('hybrid', 'ping', 1),
          device: await probe('device', 'info', {}),
          storage: await probe('storage', 'get', { key: 'k' }),
          navigation: await probe('navigation', 'setTitle', { title: 'probe' }),
          ui: await probe('ui', 'toast', { message: 'probe' }),
          proxy: await probe('proxy', 'policy', {}),
          modules: hybrid.modules,
          capabilities: Object.keys(hybrid.capabilities),
        };
        """
    static let modules = ["hybridInfo", "hybridPing", "device", "storage", "navigation", "ui", "proxy"]

    @Test(arguments: EngineKind.allCases)
    func aTopFrameSentToAForeignOriginGetsNoBuiltInModule(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/app", "<!doctype html><html><head><meta charset=utf-8><title>app</title></head><body><p>app</p></body></html>")
        let app = rig.url("/app")
        // The same server under another host name: another origin, which the app never listed.
        let foreign = rig.server.url("/app", host: "localhost")
        let allowed: [OriginPattern] = [.exact(try #require(BridgeOrigin(url: app)))]
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("hk-deny-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: storage) }
        let proxy = RequestProxy(policy: try ProxyPolicy(requests: ["http://127.0.0.1:*/*", "http://localhost:*/*"]), jar: nil)
        var configuration = HybridWebViewConfiguration(modules: [
            DeviceModule(appName: "deny", appVersion: "1", allowedOrigins: allowed),
            StorageModule(store: BridgeKeyValueStore(directory: storage), allowedOrigins: allowed),
            UIModule(allowedOrigins: allowed),
            ProxyModule(proxy: proxy, allowedOrigins: allowed),
        ])
        configuration.navigationModuleOrigins = allowed
        let view = try rig.view(configuration)
        try await view.loadAndWait(app)

        let home = try await view.engine.callAsync(Self.probe)
        #expect(home["origin"] == .string(try #require(BridgeOrigin(url: app)).description))
        for module in Self.modules {
            #expect(home[module] != "denied", "\(kind) \(module) from the allowed origin: \(home[module] ?? .null)")
        }
        #expect(home["device"] == "ok" && home["hybridInfo"] == "ok" && home["storage"] == "ok" && home["proxy"] == "ok")
        #expect(home["modules"]?.arrayValue?.contains("device") == true)

        // The page itself sends the top frame away.
        try await view.engine.waitForLoad(of: foreign, timeout: 20) {
            Task { _ = try? await view.engine.evaluate("location.href = \(JSONValue.string(foreign.absoluteString).jsonText)") }
        }
        let away = try await view.engine.callAsync(Self.probe)
        #expect(away["origin"] == .string(try #require(BridgeOrigin(url: foreign)).description))
        for module in Self.modules {
            #expect(away[module] == "denied", "\(kind) \(module) from a foreign top frame: \(away[module] ?? .null)")
        }
        #expect(away["modules"] == [])
        #expect(away["capabilities"] == [], "a foreign origin is told nothing about the container")
        #expect(home["capabilities"]?.arrayValue?.isEmpty == false)
    }
}
