import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// Boot health in the real engine: a new package version is on trial until its page calls
/// `hybrid.call('app', 'ready')`; before that a timeout, a crash or a fatal script error rolls it
/// back to the last confirmed version, blocks it and tells the app why; after it, nothing does.
@Suite("Lifecycle: boot health", .serialized)
@MainActor
struct LifecycleBootHealthTests {
    typealias Rig = OfflinePackageRig

    final class Delegate: HybridWebViewDelegate {
        var rollbacks: [PackageRollback] = []
        var whiteScreens: [WhiteScreenEvent] = []
        func webView(_ webView: HybridWebView, didRollBack rollback: PackageRollback) { rollbacks.append(rollback) }
        func webView(_ webView: HybridWebView, didDetectWhiteScreen event: WhiteScreenEvent) { whiteScreens.append(event) }
    }

    /// v2 of the shop with `script` as its `js/app.js` (the rig's own calls `app.ready`).
    static func site(version: Int, script: String) -> [String: Data] {
        var files = Rig.site(version: version)
        files["js/app.js"] = Data(script.utf8)
        return files
    }

    /// A view on the rig's package with `policy`, v1 installed, loaded and confirmed by its ready.
    func confirmedV1(_ kind: EngineKind, _ rig: Rig, policy: BootHealthPolicy,
                     whiteScreen: WhiteScreenPolicy = WhiteScreenPolicy(),
                     health: HealthRecorder? = nil) async throws -> (HybridWebView, Delegate) {
        try rig.publish(version: 1, files: Rig.site(version: 1))
        _ = try await rig.updater.update(Rig.id)
        var configuration = HybridWebViewConfiguration(whiteScreen: whiteScreen)
        configuration.health = health
        configuration.package = PackageBinding(installer: rig.installer, id: Rig.id, scheme: rig.scheme(on: kind), bootHealth: policy)
        let view = try HybridWebView(provider: try kind.provider(), configuration: configuration)
        let delegate = Delegate()
        view.delegate = delegate
        try await view.loadAndWait(rig.entryURL(on: kind))
        try await eventually("v1 confirmed by its ready") { rig.activeState == "current 1, confirmed" }
        return (view, delegate)
    }

    func installV2(_ rig: Rig, script: String) async throws {
        try rig.publish(version: 2, files: Self.site(version: 2, script: script))
        _ = try await rig.updater.update(Rig.id)
        #expect(rig.activeState == "current 2, previous 1, unconfirmed")
    }

    func showsV1(_ view: HybridWebView) async throws {
        try await eventually("v1 shown again", timeout: 20) {
            guard !view.engine.isLoading else { return false }
            return (try? await view.engine.evaluate("document.title + ' ' + window.appVersion")) == "Shop v1 1"
        }
    }

    @Test(arguments: EngineKind.allCases)
    func aVersionThatNeverSaysReadyIsRolledBackAfterTheTimeout(_ kind: EngineKind) async throws {
        let rig = try Rig()
        let (view, delegate) = try await confirmedV1(kind, rig, policy: BootHealthPolicy(timeout: 2))
        defer { view.close() }
        try await installV2(rig, script: "window.appVersion = 2;\n")

        let started = Date()
        view.load(rig.entryURL(on: kind))
        try await eventually("the rollback", timeout: 20) { !delegate.rollbacks.isEmpty }
        #expect(Date().timeIntervalSince(started) >= 2)
        #expect(delegate.rollbacks == [PackageRollback(id: Rig.id, from: 2, to: 1, reason: .notReady(timeout: 2))])
        try await showsV1(view)
        #expect(rig.activeState == "current 1, confirmed")
        #expect(rig.store.state(Rig.id).rejected == [2])
    }

    @Test(arguments: EngineKind.allCases)
    func aVersionWhoseContentProcessCrashesBeforeReadyIsRolledBack(_ kind: EngineKind) async throws {
        let rig = try Rig()
        let (view, delegate) = try await confirmedV1(kind, rig, policy: BootHealthPolicy(timeout: 60))
        defer { view.close() }
        try await installV2(rig, script: "window.appVersion = 2;\n")

        try await view.loadAndWait(rig.entryURL(on: kind))
        #expect(try await view.engine.evaluate("window.appVersion") == 2)
        view.engine.terminateContentProcess()
        try await eventually("the rollback") { !delegate.rollbacks.isEmpty }
        #expect(delegate.rollbacks == [PackageRollback(id: Rig.id, from: 2, to: 1, reason: .crashed)])
        try await showsV1(view)
        #expect(rig.store.state(Rig.id).rejected == [2])
        #expect(delegate.whiteScreens.isEmpty)   // rolled back instead of reloading the bad version
    }

    /// Recovery that gives up on a white screen (no reloads allowed here, so the first blank
    /// page is unrecoverable) during the trial rolls back with `.whiteScreen`.
    @Test(arguments: EngineKind.allCases)
    func aVersionThatGoesWhiteUnrecoverablyBeforeReadyIsRolledBack(_ kind: EngineKind) async throws {
        let rig = try Rig()
        let (view, delegate) = try await confirmedV1(kind, rig, policy: BootHealthPolicy(timeout: 60),
                                                     whiteScreen: WhiteScreenPolicy(maximumReloads: 0))
        defer { view.close() }
        try await installV2(rig, script: "window.appVersion = 2;\n")

        try await view.loadAndWait(rig.entryURL(on: kind))
        #expect(try await view.engine.evaluate("window.appVersion") == 2)
        // The page goes blank while hidden; shown again, the probe finds it white.
        view.setVisible(false)
        _ = try await view.engine.evaluate("document.title = ''; document.body.innerHTML = ''; 0")
        view.setVisible(true)
        try await eventually("the rollback") { !delegate.rollbacks.isEmpty }
        #expect(delegate.rollbacks == [PackageRollback(id: Rig.id, from: 2, to: 1, reason: .whiteScreen)])
        try await showsV1(view)
        #expect(rig.store.state(Rig.id).rejected == [2])
    }

    @Test(arguments: EngineKind.allCases)
    func aReadyVersionIsConfirmedAndALaterCrashDoesNotRollBack(_ kind: EngineKind) async throws {
        let rig = try Rig()
        let (view, delegate) = try await confirmedV1(kind, rig, policy: BootHealthPolicy(timeout: 3))
        defer { view.close() }
        try await installV2(rig, script: "window.appVersion = 2;\nhybrid.call('app', 'ready');\n")

        try await view.loadAndWait(rig.entryURL(on: kind))
        try await eventually("v2 confirmed by its ready") { rig.activeState == "current 2, confirmed" && view.packageVersionOnTrial == nil }
        view.engine.terminateContentProcess()
        try await eventually("the crash recovered") { !delegate.whiteScreens.isEmpty }
        try await eventually("v2 shown again", timeout: 20) {
            guard !view.engine.isLoading else { return false }
            return (try? await view.engine.evaluate("String(window.appVersion)")) == "2"
        }
        // The recovery's reload started no trial: no timeout is armed that could roll v2 back.
        #expect(view.packageVersionOnTrial == nil)
        #expect(delegate.rollbacks.isEmpty)
        #expect(rig.activeState == "current 2, confirmed")
        #expect(rig.store.state(Rig.id).rejected.isEmpty)
    }

    @Test(arguments: EngineKind.allCases)
    func aFatalScriptErrorBeforeReadyRollsBackWithItsMessage(_ kind: EngineKind) async throws {
        // Blink's container world hears no page errors: its driver reports them (Runtime.exceptionThrown).
        let rig = try Rig()
        let (view, delegate) = try await confirmedV1(kind, rig, policy: BootHealthPolicy(timeout: 60))
        defer { view.close() }
        try await installV2(rig, script: "window.appVersion = 2;\nwindow.cart.items.push(1);\n")

        view.load(rig.entryURL(on: kind))
        try await eventually("the rollback") { !delegate.rollbacks.isEmpty }
        let rollback = try #require(delegate.rollbacks.first)
        #expect((rollback.from, rollback.to) == (2, 1))
        guard case .scriptError(let message, let source, let line) = rollback.reason else {
            Issue.record("expected a script error, got \(rollback.reason)")
            return
        }
        #expect(message.contains("TypeError"))
        // The script's URL and line where the engine shows them to the container's world; WebKitGTK
        // hides both for a custom-scheme package (measured), and the document's URL stands in.
        let script = source.hasSuffix("/app/js/app.js") && line == 2
        let document = source == rig.entryURL(on: kind).absoluteString && line == 0
        #expect(script || document, "\(source):\(line)")
        try await showsV1(view)
        #expect(rig.store.state(Rig.id).rejected == [2])
    }

    @Test(arguments: EngineKind.allCases)
    func oneCaptureFeedsTheTrialAndTheRecorder(_ kind: EngineKind) async throws {
        // Boot health and health recording take a package page's errors from the same capture
        // (hybrid-health.js; on Blink the driver's DevTools reports): the error rolls the version
        // back and is recorded once, under the release that threw it.
        let rig = try Rig()
        let events = HealthEventLog()
        let (view, delegate) = try await confirmedV1(kind, rig, policy: BootHealthPolicy(timeout: 60),
                                                     health: HealthRecorder(sinks: [events]))
        defer { view.close() }
        try await installV2(rig, script: "window.appVersion = 2;\nwindow.cart.items.push(1);\n")

        view.load(rig.entryURL(on: kind))
        try await eventually("the rollback") { !delegate.rollbacks.isEmpty }
        guard case .scriptError(let message, _, _)? = delegate.rollbacks.first?.reason else {
            Issue.record("expected a script error, got \(String(describing: delegate.rollbacks.first?.reason))")
            return
        }
        try await eventually("the error and the rollback recorded") {
            events.all.contains { if case .rollback = $0.kind { true } else { false } } && !events.errors.isEmpty
        }
        let thrown = events.all.filter { if case .scriptError = $0.kind { true } else { false } }
        #expect(thrown.count == 1, "\(events.errors)")
        #expect(thrown.first.map { error in
            if case .scriptError(let report) = error.kind { report.message == message } else { false }
        } == true)
        #expect(thrown.first?.context.packageVersion == 2)
        try await showsV1(view)
    }

    /// Hostile: a script dispatches an `ErrorEvent` naming the package's own script before the
    /// version says it is ready. A dispatched event is not an error (the capture takes only the
    /// engine's own, `isTrusted`): the version is confirmed, nothing rolls back or is recorded.
    /// (Errors of a frame of another origin never count either: the capture's world reports the
    /// frame's origin, and boot health takes only the package's.)
    @Test(arguments: EngineKind.allCases)
    func aForgedErrorEventCannotFailTheTrial(_ kind: EngineKind) async throws {
        let rig = try Rig()
        let events = HealthEventLog()
        let (view, delegate) = try await confirmedV1(kind, rig, policy: BootHealthPolicy(timeout: 60),
                                                     health: HealthRecorder(sinks: [events]))
        defer { view.close() }
        let named = rig.entryURL(on: kind).appendingPathComponent("js/app.js").absoluteString
        try await installV2(rig, script: """
            window.appVersion = 2;
            window.dispatchEvent(new ErrorEvent('error', { message: 'forged', filename: '\(named)', lineno: 1, colno: 1 }));
            hybrid.call('app', 'ready');
            """)

        try await view.loadAndWait(rig.entryURL(on: kind))
        try await eventually("v2 confirmed by its ready") { rig.activeState == "current 2, confirmed" }
        #expect(delegate.rollbacks.isEmpty)
        #expect(!events.errors.contains { $0.message.contains("forged") })
    }

    @Test(arguments: EngineKind.allCases)
    func onlyThePackagesOwnOriginMayCallAppReady(_ kind: EngineKind) async throws {
        let rig = try Rig()
        let (view, delegate) = try await confirmedV1(kind, rig, policy: BootHealthPolicy(timeout: 60))
        defer { view.close() }
        try await installV2(rig, script: "window.appVersion = 2;\n")
        try await view.loadAndWait(rig.entryURL(on: kind))   // v2 on trial, silent

        // Another origin's page shown in the same container cannot confirm the version on trial.
        let recorder = EventRecorder(view.engine)
        view.loadHTML("<title>elsewhere</title>", baseURL: URL(string: "https://elsewhere.hybridkit.invalid/")!)
        try await recorder.loadFinished()
        let answer = try await view.page("""
            if (typeof hybrid === 'undefined') return 'no runtime';
            return await Promise.race([
              hybrid.call('app', 'ready').then(() => 'accepted', (e) => e.code || 'rejected'),
              new Promise((resolve) => setTimeout(() => resolve('no answer'), 3000)),
            ]);
            """)
        #expect(answer != "accepted")
        #expect(rig.activeState == "current 2, previous 1, unconfirmed")
        #expect(delegate.rollbacks.isEmpty)
    }

    @Test(arguments: EngineKind.allCases)
    func firstContentfulPaintConfirmsAVersionThatNeverCallsReady(_ kind: EngineKind) async throws {
        let rig = try Rig()
        let (view, delegate) = try await confirmedV1(kind, rig, policy: BootHealthPolicy(signal: .firstContentfulPaint, timeout: 8))
        defer { view.close() }
        try await installV2(rig, script: "window.appVersion = 2;\n")   // paints its headline, never says ready

        try await view.loadAndWait(rig.entryURL(on: kind))
        try await eventually("v2 confirmed by its first contentful paint") { rig.activeState == "current 2, confirmed" }
        #expect(delegate.rollbacks.isEmpty)
    }

    @Test(arguments: EngineKind.allCases)
    func launchPackageRepairsTheFilesBeforeThePageLoads(_ kind: EngineKind) async throws {
        let rig = try Rig()
        let (view, _) = try await confirmedV1(kind, rig, policy: BootHealthPolicy(timeout: 60))
        defer { view.close() }
        // Between launches the style sheet is truncated on disk.
        let package = try rig.store.activePackage(Rig.id)
        let sheet = package.contentsURL(of: try #require(package.manifest.file(at: PackagePath("css/site.css"))))
        try Data("#he".utf8).write(to: sheet)

        let recorder = EventRecorder(view.engine)
        let report = await view.launchPackage(rig.entryURL(on: kind), repairingFrom: rig.updater)
        #expect(report?.damaged == ["css/site.css"] && report?.repaired == ["css/site.css"])
        try await recorder.loadFinished()
        try await eventually("the page whole") {
            (try? await view.engine.evaluate("getComputedStyle(document.getElementById('headline')).color")) == "rgb(10, 20, 30)"
        }
    }
}
