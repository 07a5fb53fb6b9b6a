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

@MainActor
final class RecordingAppDelegate: BridgeNavigationDelegate, BridgeUIDelegate {
    var calls: [String] = []
    var confirmAnswer = true
    func bridgeOpen(_ url: URL, title: String?) async throws { calls.append("open \(url.absoluteString) \(title ?? "-")") }
    func bridgeClose() async throws { calls.append("close") }
    func bridgeSetTitle(_ title: String) async throws { calls.append("title \(title)") }
    func bridgeGoBack() async throws -> Bool { calls.append("back"); return false }
    func bridgeToast(_ message: String, duration: TimeInterval) async { calls.append("toast \(message) \(duration)") }
    func bridgeAlert(title: String?, message: String) async { calls.append("alert \(title ?? "-") \(message)") }
    func bridgeConfirm(title: String?, message: String) async -> Bool { calls.append("confirm \(message)"); return confirmAnswer }
}

@Suite("Built-in modules: hybrid, device, storage, navigation, ui")
@MainActor
struct BridgeModuleTests {
    static let origin = BridgeOrigin(scheme: "https", host: "app.example.com")
    static let other = BridgeOrigin(scheme: "https", host: "other.example.com")

    func router(_ modules: [any BridgeModule]) async -> BridgeRouter {
        let router = BridgeRouter(modules: modules)
        router.beginDocument()
        _ = await router.receive(Wire.hello(), origin: Self.origin)
        return router
    }

    func call(_ router: BridgeRouter, _ module: String, _ action: String, _ params: String = "{}",
              origin: BridgeOrigin? = BridgeModuleTests.origin, id: Int = 1) async -> JSONValue? {
        Wire.object(await router.receive(Wire.call(id: id, module: module, action: action, params: params), origin: origin))
    }

    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("hk-storage-\(UUID().uuidString)")
    }

    @Test func hybridInfoReportsVersionAndTheCallersModules() async {
        let host = BridgeHost(capabilities: .fake(), modules: [DeviceModule(allowedOrigins: [.exact(Self.other)]), ProbeModule()])
        host.router.beginDocument()
        _ = await host.router.receive(Wire.hello(), origin: Self.other)
        let info = await call(host.router, "hybrid", "info", origin: Self.other)
        #expect(info?["value"]?["version"] == .string(BridgeRouter.version))
        #expect(info?["value"]?["modules"] == ["device", "hybrid"])
        #expect(info?["value"]?["capabilities"]?["transport"] == "isolated-reply")
        #expect(await call(host.router, "hybrid", "ping", #"{"x":[1]}"#, origin: Self.other, id: 2)?["value"] == ["x": [1]])
    }

    /// Default deny reaches the `hybrid` module too: an origin no module admits cannot even ask
    /// what it may call; a module registered later widens it to that module's origins.
    @Test func theHybridModuleAnswersOnlyOriginsSomeModuleAdmits() async {
        let host = BridgeHost(capabilities: .fake(), modules: [DeviceModule(allowedOrigins: [.exact(Self.origin)])])
        host.router.beginDocument()
        _ = await host.router.receive(Wire.hello(), origin: Self.other)
        #expect(await call(host.router, "hybrid", "info", origin: Self.other)?["error"]?["code"] == "denied")
        #expect(await call(host.router, "hybrid", "ping", "1", origin: Self.other, id: 2)?["error"]?["code"] == "denied")
        #expect(await call(host.router, "device", "info", origin: Self.other, id: 3)?["error"]?["code"] == "denied")
        #expect(host.router.moduleNames(for: Self.other).isEmpty)
        #expect(host.router.moduleNames(for: Self.origin) == ["device", "hybrid"])
        // What a hello or an issued nonce tells that origin: only that it may call nothing.
        #expect(host.router.info(for: Self.other) == ["modules": []])
        #expect(host.router.info(for: Self.origin)["version"] == .string(BridgeRouter.version))
        var probe = ProbeModule()
        probe.allowedOrigins = [.exact(Self.other)]
        host.router.register(probe)
        #expect(await call(host.router, "hybrid", "ping", "1", origin: Self.other, id: 4)?["value"] == 1)
        #expect(host.router.moduleNames(for: Self.other) == ["hybrid", "probe"])
    }

    @Test func deviceInfoDescribesPlatformLocaleAndApp() async {
        let router = await router([DeviceModule(appName: "Demo", appVersion: "2.1", allowedOrigins: [.exact(Self.origin)])])
        let info = await call(router, "device", "info")?["value"]
        #expect(info?["appName"] == "Demo" && info?["appVersion"] == "2.1")
        #if os(Linux)
        #expect(info?["platform"] == "linux")
        #endif
        #expect(info?["locale"]?.stringValue?.contains("_") == false)
        #expect(info?["osVersion"]?.stringValue?.isEmpty == false)
    }

    @Test(arguments: [("en_US.UTF-8", "en-US"), ("C", "en-US"), ("zh_Hans_CN", "zh-Hans-CN"), ("fr", "fr")])
    func localesBecomeBCP47(_ identifier: String, _ tag: String) {
        #expect(DeviceInfo.bcp47(identifier) == tag)
    }

    @Test func storagePersistsPerOriginAcrossStores() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let patterns: [OriginPattern] = [.exact(Self.origin), .exact(Self.other)]
        let first = await router([StorageModule(store: BridgeKeyValueStore(directory: directory), allowedOrigins: patterns)])
        #expect(await call(first, "storage", "set", #"{"key":"k","value":{"n":[1,"é"]}}"#)?["ok"] == true)
        #expect(await call(first, "storage", "set", #"{"key":"k","value":"theirs"}"#, origin: Self.other)?["ok"] == true)
        // A new store on the same directory (an app restart) reads what was written.
        let second = await router([StorageModule(store: BridgeKeyValueStore(directory: directory), allowedOrigins: patterns)])
        #expect(await call(second, "storage", "get", #"{"key":"k"}"#)?["value"] == ["n": [1, "é"]])
        #expect(await call(second, "storage", "get", #"{"key":"k"}"#, origin: Self.other)?["value"] == "theirs")
        #expect(await call(second, "storage", "keys")?["value"] == ["k"])
        #expect(await call(second, "storage", "remove", #"{"key":"k"}"#)?["value"] == true)
        #expect(await call(second, "storage", "get", #"{"key":"k"}"#)?["value"] == .null)
        #expect(await call(second, "storage", "get", #"{"key":"k"}"#, origin: Self.other)?["value"] == "theirs")
        #expect(await call(second, "storage", "clear", origin: Self.other)?["ok"] == true)
        #expect(await call(second, "storage", "keys", origin: Self.other)?["value"] == [])
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.allSatisfy { $0.hasSuffix(".json") && !$0.contains("/") })
    }

    @Test func storageEnforcesItsLimits() async {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let limits = BridgeKeyValueStore.Limits(maxKeyBytes: 8, maxValueBytes: 64, maxBytesPerOrigin: 100, maxKeysPerOrigin: 3)
        let router = await router([StorageModule(store: BridgeKeyValueStore(directory: directory, limits: limits), allowedOrigins: [.any])])
        let big = String(repeating: "x", count: 80)
        #expect(await call(router, "storage", "set", #"{"key":"a","value":"\#(big)"}"#)?["error"]?["code"] == "payload_too_large")
        #expect(await call(router, "storage", "set", #"{"key":"much-too-long","value":1}"#)?["error"]?["code"] == "bad_params")
        #expect(await call(router, "storage", "set", #"{"key":"","value":1}"#)?["error"]?["code"] == "bad_params")
        for key in ["a", "b", "c"] { #expect(await call(router, "storage", "set", #"{"key":"\#(key)","value":1}"#)?["ok"] == true) }
        #expect(await call(router, "storage", "set", #"{"key":"d","value":1}"#)?["error"]?["code"] == "quota_exceeded")
        let fifty = String(repeating: "y", count: 50)
        #expect(await call(router, "storage", "set", #"{"key":"a","value":"\#(fifty)"}"#)?["ok"] == true)
        #expect(await call(router, "storage", "set", #"{"key":"b","value":"\#(fifty)"}"#)?["error"]?["code"] == "quota_exceeded")
        #expect(await call(router, "storage", "get", #"{"key":"b"}"#)?["value"] == 1)
        #expect(await call(router, "storage", "get", "{}")?["error"]?["code"] == "bad_params")
    }

    @Test func storageNeedsAnOrigin() async {
        let directory = temporaryDirectory()
        let router = await router([StorageModule(store: BridgeKeyValueStore(directory: directory), allowedOrigins: [.any])])
        #expect(await call(router, "storage", "keys", origin: nil)?["error"]?["code"] == "denied")
    }

    @Test func storageFilesCannotCollideOrEscape() async {
        let store = BridgeKeyValueStore(directory: URL(fileURLWithPath: "/tmp/x"))
        let a = await store.file(for: BridgeOrigin(scheme: "https", host: "a-b.com"))
        let b = await store.file(for: BridgeOrigin(scheme: "https", host: "a_b.com"))
        let c = await store.file(for: BridgeOrigin(scheme: "hybrid-app", host: "../../etc"))
        #expect(a != b)
        #expect(c.deletingLastPathComponent().path == "/tmp/x")
    }

    @Test func navigationAndUIGoToTheAppsDelegates() async {
        let app = RecordingAppDelegate()
        let navigation = NavigationModule(allowedOrigins: [.any], slot: BridgeDelegateSlot(app))
        let ui = UIModule(allowedOrigins: [.any], slot: BridgeDelegateSlot(app))
        let router = await router([navigation, ui])
        #expect(await call(router, "navigation", "open", #"{"url":"https://example.com/next","title":"Next"}"#)?["ok"] == true)
        #expect(await call(router, "navigation", "open", #"{"url":"javascript:alert(1)"}"#)?["error"]?["code"] == "bad_params")
        #expect(await call(router, "navigation", "setTitle", #"{"title":"T"}"#)?["ok"] == true)
        #expect(await call(router, "navigation", "back")?["value"] == false)
        #expect(await call(router, "navigation", "close")?["ok"] == true)
        #expect(await call(router, "ui", "toast", #"{"message":"hi","duration":99}"#)?["ok"] == true)
        #expect(await call(router, "ui", "alert", #"{"message":"m","title":"t"}"#)?["ok"] == true)
        app.confirmAnswer = false
        #expect(await call(router, "ui", "confirm", #"{"message":"sure?"}"#)?["value"] == false)
        #expect(app.calls == ["open https://example.com/next Next", "title T", "back", "close", "toast hi 10.0", "alert t m", "confirm sure?"])
    }

    @Test func withoutADelegateTheActionsAreUnavailable() async {
        let router = await router([NavigationModule(allowedOrigins: [.any]), UIModule(allowedOrigins: [.any])])
        #expect(await call(router, "navigation", "close")?["error"]?["code"] == "unavailable")
        #expect(await call(router, "ui", "confirm", #"{"message":"?"}"#)?["error"]?["code"] == "unavailable")
    }

    @Test func delegatesAreHeldWeakly() {
        let slot = BridgeDelegateSlot<any BridgeUIDelegate>()
        do {
            let app = RecordingAppDelegate()
            slot.delegate = app
            #expect(slot.delegate != nil)
        }
        #expect(slot.delegate == nil)
    }
}
