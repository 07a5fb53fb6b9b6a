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

/// The container's one page capture (`hybrid-health.js`) over the fake engine: a package view runs
/// it once for boot health and health recording together, in the bridge's world, never a second
/// script in a world of its own; without a recorder it leaves the timing out.
@Suite("Health: one page capture (fake engine)")
@MainActor
struct PageCaptureTests {
    let world = ScriptWorld.named(BridgeHost.Options().worldName)

    func packageView(recording events: HealthEventLog?) throws -> (HybridWebView, FakeEngineDriver, PackageFixture) {
        let fixture = try PackageFixture()
        var configuration = HybridWebViewConfiguration()
        configuration.package = PackageBinding(installer: fixture.installer(fixture.store()), id: "app", scheme: "app")
        configuration.health = events.map { HealthRecorder(sinks: [$0]) }
        let provider = FakeEngineProvider()
        return (try HybridWebView(provider: provider, configuration: configuration), provider.drivers[0], fixture)
    }

    /// The capture scripts and handlers in `driver`'s configuration, and every world a script runs in.
    func captures(_ driver: FakeEngineDriver) -> (scripts: [UserScript], handlers: [ScriptMessageHandler], worlds: Set<ScriptWorld>) {
        let configuration = driver.configuration
        return (configuration.userScripts.filter { $0.source.hasSuffix(HealthCapture.source) },
                configuration.messageHandlers.filter { $0.name == HealthCapture.handlerName },
                Set(configuration.userScripts.map(\.world)))
    }

    @Test func aPackageViewWithARecorderRunsOneCaptureForBothConsumers() throws {
        let (view, driver, _) = try packageView(recording: HealthEventLog())
        defer { view.close() }
        let found = captures(driver)
        #expect(found.scripts.count == 1)
        #expect(found.scripts.first?.source == HealthCapture.source)   // with the timing
        #expect(found.scripts.first?.world == world && found.scripts.first?.frames == .allFrames)
        #expect(found.handlers.count == 1 && found.handlers.first?.world == world)
        #expect(found.worlds.isSubset(of: [world, .page]), "\(found.worlds)")   // no world of boot health's own
    }

    @Test func aPackageViewWithoutARecorderRunsTheCaptureWithoutTheTiming() async throws {
        let (view, driver, _) = try packageView(recording: nil)
        defer { view.close() }
        let found = captures(driver)
        #expect(found.scripts.count == 1)
        #expect(found.scripts.first?.source != HealthCapture.source)
        #expect(found.scripts.first?.source.hasPrefix("window.__hybridkitHealthErrorsOnly = true;") == true)
        #expect(found.handlers.count == 1 && found.worlds.isSubset(of: [world, .page]))
        // Hostile posts to it (no recorder, no trial) are taken and dropped without harm.
        for body in ["not json", #"{"kind":"error","message":"x","source":"app://app/index.html"}"#,
                     #"{"kind":"timing","firstContentfulPaint":1}"#, String(repeating: "x", count: 100_000)] {
            _ = await driver.post(.string(body), to: HealthCapture.handlerName, in: world)
        }
        #expect(!view.isClosed)
    }

    @Test func theCapturesErrorsReachTheRecorderAndItsRejectionsToo() async throws {
        let events = HealthEventLog()
        let (view, driver, _) = try packageView(recording: events)
        defer { view.close() }
        let page = URL(string: "https://m.example.com/shop")!
        view.load(page)
        driver.runLoad(page)
        await driver.post(.string(#"{"kind":"error","type":"error","message":"boom","source":"https://m.example.com/a.js","line":1}"#),
                          to: HealthCapture.handlerName, in: world)
        await driver.post(.string(#"{"kind":"error","type":"rejection","message":"nope"}"#), to: HealthCapture.handlerName, in: world)
        #expect(events.errors.map(\.type) == ["error", "rejection"])
    }

    @Test func reportsWithAFieldOfTheWrongTypeAreRefused() {
        for text in [#"{"kind":"error","message":"x","line":"3"}"#, #"{"kind":"error","message":"x","column":1.5}"#,
                     #"{"kind":"error","message":7}"#, #"{"kind":"error","message":"x","stack":{}}"#,
                     #"{"kind":"timing","firstContentfulPaint":"fast"}"#, #"{"kind":"timing","page":3}"#,
                     #"{"kind":"dropped","count":1.5}"#, #"{"kind":5}"#, #"{"kind":"dropped","count":1e300}"#] {
            #expect(HealthCapture.parse(text) == nil, "\(text)")
        }
        #expect(HealthCapture.parse(#"{"kind":"timing","page":"https://a.example/","firstContentfulPaint":12,"firstPaint":null}"#)
                == .timing(PageTiming(firstContentfulPaint: 12), page: "https://a.example/"))
        #expect(HealthCapture.parse(#"{"kind":"error","message":"x","line":3,"column":0,"source":""}"#)
                == .error(ScriptErrorReport(message: "x", line: 3)))
        #expect(HealthCapture.parse(#"{"kind":"dropped","count":7}"#) == .dropped(7))
    }
}
