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

/// What a view records when its configuration has a health recorder, over the fake engine: a
/// launch per navigation with its context, the page's own reports (malformed ones refused), the
/// driver's script errors, terminations and white screens — and nothing at all without one.
@Suite("Health: the view's wiring (fake engine)")
@MainActor
struct HealthWiringTests {
    func make(decision: FeatureDecision? = nil) throws -> (HybridWebView, FakeEngineDriver, HealthEventLog) {
        let events = HealthEventLog()
        var configuration = HybridWebViewConfiguration()
        configuration.health = HealthRecorder(sinks: [events])
        configuration.decision = decision
        let provider = FakeEngineProvider()
        let view = try HybridWebView(provider: provider, configuration: configuration)
        return (view, provider.drivers[0], events)
    }

    let world = ScriptWorld.named(BridgeHost.Options().worldName)
    let page = URL(string: "https://m.example.com/shop?token=secret#top")!

    @Test func withoutARecorderNothingIsInjected() throws {
        let provider = FakeEngineProvider()
        _ = try HybridWebView(provider: provider)
        let configuration = provider.drivers[0].configuration
        #expect(!configuration.userScripts.contains { $0.source == HealthCapture.source })
        #expect(!configuration.messageHandlers.contains { $0.name == HealthCapture.handlerName })
    }

    @Test func aLoadIsALaunchAndThePagesReportsJoinIt() async throws {
        let (view, driver, events) = try make()
        #expect(driver.configuration.userScripts.contains { $0.source == HealthCapture.source && $0.world == world && $0.frames == .allFrames })
        view.load(page)
        driver.runLoad(page)
        await driver.post(.string(#"{"kind":"timing","page":"https://m.example.com/old","firstContentfulPaint":3}"#),
                          to: HealthCapture.handlerName, in: world)   // the previous document, going away
        await driver.post(.string(#"{"kind":"timing","page":"https://m.example.com/shop?token=secret#top","responseStart":12,"domContentLoaded":40,"load":80,"firstContentfulPaint":55.5}"#),
                          to: HealthCapture.handlerName, in: world)
        await driver.post(.string(#"{"kind":"timing","firstContentfulPaint":1}"#), to: HealthCapture.handlerName, in: world)
        await driver.post(.string(#"{"kind":"error","type":"error","message":"boom","source":"https://m.example.com/a.js?x=1","line":3,"column":9,"origin":"https://m.example.com"}"#),
                          to: HealthCapture.handlerName, in: world)
        driver.emit(.scriptError(ScriptErrorReport(type: "rejection", message: "nope", origin: "https://ads.example.net")))
        #expect(events.names == ["hybridkit.page.launch", "hybridkit.page.timing", "hybridkit.script.error", "hybridkit.script.error"])
        let all = events.all
        #expect(all[0].kind == .launch(source: .network))
        #expect(all[1].kind == .pageTiming(PageTiming(responseStart: 12, domContentLoaded: 40, load: 80, firstContentfulPaint: 55.5)))
        #expect(all[2].kind == .scriptError(ScriptErrorReport(message: "boom", source: "https://m.example.com/a.js", line: 3,
                                                              column: 9, origin: "https://m.example.com")))
        #expect(all.allSatisfy { $0.context.url == "https://m.example.com/shop" && $0.context.engine == "fake" })
        #expect(Set(all.map(\.context.launchID)).count == 1)
    }

    @Test func malformedOversizedAndUnknownReportsAreRefused() async throws {
        let (view, driver, events) = try make()
        view.load(page)
        driver.runLoad(page)
        for body in ["not json", #"{"kind":"timing""#, #"{"kind":"mine","message":"x"}"#, #"{"kind":"error"}"#,
                     #"{"kind":"dropped","count":-5}"#, #"["error"]"#,
                     #"{"kind":"error","message":""# + String(repeating: "x", count: 40_000) + #""}"#] {
            await driver.post(.string(body), to: HealthCapture.handlerName, in: world)
        }
        await driver.post(.json(#"{"kind":"error","message":"an object, not a string"}"#), to: HealthCapture.handlerName,
                          in: world)
        #expect(events.names == ["hybridkit.page.launch"])
    }

    @Test func thePagesNavigationsAreLaunchesOfTheirOwnAndTheFoldedCountComesWhenOneEnds() async throws {
        let (view, driver, events) = try make()
        view.load(page)
        driver.runLoad(page)
        await driver.post(.string(#"{"kind":"dropped","count":7}"#), to: HealthCapture.handlerName, in: world)
        driver.runLoad(URL(string: "https://m.example.com/next")!)   // a link the page followed
        let launches = events.all.filter { if case .launch = $0.kind { true } else { false } }
        #expect(launches.count == 2)
        let dropped = try #require(events.all.first { $0.kind == .dropped(count: 7) })
        #expect(dropped.context.launchID == launches[0].context.launchID)
        view.close()
    }

    @Test func anUpdateReportBecomesAnUpdateEventOfTheNewRelease() {
        var report = PackageUpdater.Report(id: "shop", previousVersion: 6, outcome: .installed(version: 7, previous: 6), upToDate: false)
        report.patchesApplied = 2
        report.bytesFetched = 1_200
        report.documentBytes = 300
        report.duration = 0.25
        let event = HealthEvent(update: report, engine: "webkit")
        #expect(event.kind == .update(way: "patch", bytes: 1_500, milliseconds: 250))
        #expect(event.context.release == "shop@7")
        let none = HealthEvent(update: PackageUpdater.Report(id: "shop", previousVersion: 7, outcome: nil, upToDate: true), engine: "blink")
        #expect(none.kind == .update(way: "none", bytes: 0, milliseconds: 0))
        #expect(none.context.release == "shop@7")
    }

    @Test func terminationsAndWhiteScreensAreRecordedWithTheRuleAndBucket() throws {
        let decision = FeatureDecision(
            url: page, installID: "install-1", source: .rule("shop-canary"), configVersion: 3, features: FeatureSet(),
            engine: nil, trace: [.init(ruleID: "shop-canary", pattern: "https://m.example.com/*", rollout: 50,
                                       outcome: .applied(RolloutBucket(installID: "install-1", ruleID: "shop-canary")))])
        let (view, driver, events) = try make(decision: decision)
        view.load(page)
        driver.runLoad(page)
        driver.terminate(.crashed)
        #expect(events.names.suffix(2) == ["hybridkit.process.terminated", "hybridkit.page.white_screen"])
        let bucket = RolloutBucket(installID: "install-1", ruleID: "shop-canary")
        for event in events.all {
            #expect(event.context.configRule == "shop-canary")
            #expect(event.context.rolloutBucket == Double(bucket.value) * 100 / Double(RolloutBucket.count))
        }
        #expect(events.all.last?.kind == .whiteScreen(reason: "terminated_crashed", recovery: "reload"))
        view.close()
    }
}
