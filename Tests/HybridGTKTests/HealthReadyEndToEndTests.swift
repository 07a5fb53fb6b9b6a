import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// The ready mark of network pages in the real engines (``HybridWebViewConfiguration/readyOrigins``):
/// a page of a listed loopback origin marks each launch ready once, with its milliseconds; a page
/// of an unlisted origin is denied, and a foreign iframe inside a listed page gets no bridge to
/// call with — neither records anything.
@Suite("Health: network pages' ready mark in the engines", .serialized)
@MainActor
struct HealthReadyEndToEndTests {
    typealias Fixture = HealthEndToEndTests.Fixture

    static let markReady = """
        await hybrid.ready;
        const answers = [];
        for (let i = 0; i < 2; i++) {
          try { answers.push(await hybrid.call('app', 'ready')); } catch (e) { answers.push(e.code); }
        }
        return answers;
        """

    func readyEvents(_ events: HealthEventLog) -> [(milliseconds: Double, event: HealthEvent)] {
        events.all.compactMap { if case .ready(let milliseconds) = $0.kind { (milliseconds, $0) } else { nil } }
    }

    @Test(arguments: EngineKind.allCases)
    func aListedOriginsReadyIsRecordedOncePerLaunchWithItsMilliseconds(_ kind: EngineKind) async throws {
        let fixture = try Fixture(kind) { configuration, origin in configuration.readyOrigins = [OriginPattern(origin)] }
        defer { fixture.rig.close() }
        try await fixture.open("/health/ready", HealthEndToEndTests.content)
        #expect(try await fixture.view.page(Self.markReady) == [.null, .null])
        try await fixture.open("/health/ready-again", HealthEndToEndTests.content)
        #expect(try await fixture.view.page(Self.markReady) == [.null, .null])
        let ready = readyEvents(fixture.events)
        #expect(ready.count == 2, "once per launch")
        let launches = fixture.events.all.filter { if case .launch = $0.kind { true } else { false } }
        #expect(launches.count == 2)
        for (index, mark) in ready.enumerated() {
            #expect(mark.milliseconds > 0)
            #expect(mark.event.context.launchID == launches[index].context.launchID)
            #expect(mark.event.context.packageID == nil)
        }
        #expect(ready.first?.event.context.url == fixture.rig.url("/health/ready").absoluteString)
        #expect(fixture.events.launches == [.network, .network])
    }

    @Test(arguments: EngineKind.allCases)
    func anUnlistedOriginAndAForeignIframeCannotMarkReady(_ kind: EngineKind) async throws {
        let fixture = try Fixture(kind) { configuration, origin in configuration.readyOrigins = [OriginPattern(origin)] }
        defer { fixture.rig.close() }
        // A page of another origin (localhost, not 127.0.0.1) calls: denied.
        fixture.rig.page("/health/unlisted", HealthEndToEndTests.content)
        try await fixture.view.loadAndWait(fixture.rig.server.url("/health/unlisted", host: "localhost"))
        #expect(try await fixture.view.page(Self.markReady) == ["denied", "denied"])
        // A foreign iframe inside a listed page tries to call, directly and through its parent.
        fixture.rig.page("/health/frame", """
            <!doctype html><script>
            const report = { hybrid: typeof window.hybrid };
            try { parent.hybrid.call('app', 'ready'); report.parent = 'called'; } catch (e) { report.parent = e.name; }
            parent.postMessage(JSON.stringify(report), '*');
            </script>
            """)
        let frame = fixture.rig.server.url("/health/frame", host: "localhost")
        try await fixture.open("/health/framed", HealthEndToEndTests.content + """
            <script>window.addEventListener('message', (e) => { window.frameReport = e.data; });</script>
            <iframe src='\(frame.absoluteString)'></iframe>
            """)
        try await eventually("the iframe's report") {
            try await fixture.view.engine.evaluate("typeof window.frameReport === 'string'") == .bool(true)
        }
        let report = try JSONValue(jsonText: try #require(try await fixture.view.engine.evaluate("window.frameReport").stringValue))
        #expect(report["hybrid"] == "undefined")
        #expect(report["parent"] == "SecurityError")
        #expect(readyEvents(fixture.events).isEmpty)
        // The listed page itself still may: the denials were the origins', not a broken module.
        #expect(try await fixture.view.page(Self.markReady) == [.null, .null])
        #expect(readyEvents(fixture.events).count == 1)
    }

    /// A package-bound view with a version on trial: a listed network page's ready is recorded but
    /// leaves the trial alone (the version stays unconfirmed, nothing rolls back).
    @Test(arguments: EngineKind.allCases)
    func aNetworkPagesReadyNeverConfirmsAVersionOnTrial(_ kind: EngineKind) async throws {
        let rig = try OfflinePackageRig()
        try rig.publish(version: 1, files: OfflinePackageRig.site(version: 1))
        _ = try await rig.updater.update(OfflinePackageRig.id)
        let events = HealthEventLog()
        let elsewhere = URL(string: "https://elsewhere.hybridkit.invalid/")!
        var configuration = HybridWebViewConfiguration()
        configuration.package = PackageBinding(installer: rig.installer, id: OfflinePackageRig.id, scheme: rig.scheme(on: kind),
                                               bootHealth: BootHealthPolicy(timeout: 60))
        configuration.health = HealthRecorder(sinks: [events])
        configuration.readyOrigins = ["https://elsewhere.hybridkit.invalid"]
        let view = try HybridWebView(provider: try kind.provider(), configuration: configuration)
        let delegate = LifecycleBootHealthTests.Delegate()
        view.delegate = delegate
        defer { view.close() }
        try await view.loadAndWait(rig.entryURL(on: kind))
        try await eventually("v1 confirmed by its ready") { rig.activeState == "current 1, confirmed" }
        try await LifecycleBootHealthTests().installV2(rig, script: "window.appVersion = 2;\n")
        try await view.loadAndWait(rig.entryURL(on: kind))   // v2 on trial, silent

        let recorder = EventRecorder(view.engine)
        view.loadHTML("<title>elsewhere</title>", baseURL: elsewhere)
        try await recorder.loadFinished()
        #expect(try await view.page(Self.markReady) == [.null, .null])
        let ready = readyEvents(events)
        #expect(ready.count == 2, "v1's package launch and the network page's")
        #expect(ready.last?.event.context.packageID == nil)
        #expect(ready.last?.event.context.url == elsewhere.absoluteString)
        #expect(rig.activeState == "current 2, previous 1, unconfirmed")
        #expect(delegate.rollbacks.isEmpty)
    }
}
