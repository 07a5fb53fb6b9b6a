import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import HybridFixtures
import HybridTesting
import Testing

/// The ready mark of network pages (``HybridWebViewConfiguration/readyOrigins``) over the fake
/// engine: a listed origin's `app.ready` is recorded once per launch; an unlisted origin, a view
/// without the list or without a recorder get `denied` and record nothing.
@Suite("Health: network pages' ready mark (fake engine)")
@MainActor
struct HealthReadyMarkTests {
    let page = URL(string: "https://m.example.com/shop")!
    let listed = BridgeOrigin(scheme: "https", host: "m.example.com")
    let unlisted = BridgeOrigin(scheme: "https", host: "ads.example.net")

    func make(readyOrigins: [OriginPattern], health: Bool = true) throws -> (HybridWebView, FakeEngineDriver, HealthEventLog) {
        let events = HealthEventLog()
        var configuration = HybridWebViewConfiguration()
        configuration.health = health ? HealthRecorder(sinks: [events]) : nil
        configuration.readyOrigins = readyOrigins
        let provider = FakeEngineProvider()
        let view = try HybridWebView(provider: provider, configuration: configuration)
        return (view, provider.drivers[0], events)
    }

    /// Loads `url` and has its document (of `origin`) say hello to the bridge.
    func open(_ url: URL, origin: BridgeOrigin, in view: HybridWebView, _ driver: FakeEngineDriver) async {
        view.load(url)
        driver.runLoad(url)
        view.bridge.router.beginDocument()
        _ = await view.bridge.router.receive(Wire.hello(), origin: origin)
    }

    func ready(_ view: HybridWebView, origin: BridgeOrigin, id: Int) async -> JSONValue? {
        Wire.object(await view.bridge.router.receive(Wire.call(id: id, module: "app", action: "ready"), origin: origin))
    }

    var readyEvents: (HealthEventLog) -> [HealthEvent] {
        { $0.all.filter { if case .ready = $0.kind { true } else { false } } }
    }

    @Test func aListedOriginsReadyIsRecordedOncePerLaunch() async throws {
        let (view, driver, events) = try make(readyOrigins: ["https://m.example.com"])
        #expect(view.bridge.router.moduleNames.contains("app"))
        await open(page, origin: listed, in: view, driver)
        #expect(await ready(view, origin: listed, id: 1)?["value"] == .null)
        #expect(await ready(view, origin: listed, id: 2)?["value"] == .null, "a second call answers, records nothing")
        let first = readyEvents(events)
        #expect(first.count == 1)
        let launch = try #require(events.all.first { if case .launch = $0.kind { true } else { false } })
        #expect(first.first?.context.launchID == launch.context.launchID)
        #expect(first.first?.context.url == page.absoluteString)
        if case .ready(let milliseconds)? = first.first?.kind { #expect(milliseconds >= 0) }
        #expect(first.first?.context.packageID == nil)

        await open(URL(string: "https://m.example.com/cart")!, origin: listed, in: view, driver)
        #expect(await ready(view, origin: listed, id: 3)?["value"] == .null)
        let both = readyEvents(events)
        #expect(both.count == 2)
        #expect(both[1].context.launchID != both[0].context.launchID)
        #expect(view.packageVersionOnTrial == nil)
    }

    @Test func anUnlistedOriginIsDeniedAndRecordsNothing() async throws {
        let (view, driver, events) = try make(readyOrigins: ["https://m.example.com"])
        await open(URL(string: "https://ads.example.net/")!, origin: unlisted, in: view, driver)
        #expect(await ready(view, origin: unlisted, id: 1)?["error"]?["code"] == "denied")
        #expect(readyEvents(events).isEmpty)
    }

    @Test func withoutTheListOrWithoutARecorderNoPageMayMarkReady() async throws {
        for (origins, health) in [([OriginPattern](), true), (["https://m.example.com"], false)] {
            let (view, driver, events) = try make(readyOrigins: origins, health: health)
            #expect(!view.bridge.router.moduleNames.contains("app"))
            await open(page, origin: listed, in: view, driver)
            let answer = await ready(view, origin: listed, id: 1)
            #expect(answer?["error"]?["code"] != nil, "\(origins) health: \(health)")
            #expect(answer?["value"] == nil)
            #expect(readyEvents(events).isEmpty)
        }
    }

    @Test func theModuleAdmitsThePackageOriginAndTheReadyOriginsOnly() {
        let module = AppModule(package: nil, readyOrigins: ["https://m.example.com"])
        #expect(module.allowedOrigins.contains { $0.matches(listed) })
        #expect(!module.allowedOrigins.contains { $0.matches(unlisted) })
        #expect(!module.allowedOrigins.contains { $0.matches(nil) })
    }
}
