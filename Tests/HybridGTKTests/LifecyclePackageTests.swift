import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// The container confirms a package version once its page has loaded and rolls back when it
/// cannot load, with no app code in between.
@Suite("Lifecycle: offline package versions", .serialized)
@MainActor
struct LifecyclePackageTests {
    typealias Rig = OfflinePackageRig

    func view(_ kind: EngineKind, _ rig: Rig) throws -> HybridWebView {
        var configuration = HybridWebViewConfiguration()
        configuration.package = PackageBinding(installer: rig.installer, id: Rig.id, scheme: rig.scheme(on: kind))
        return try HybridWebView(provider: try kind.provider(), configuration: configuration)
    }

    @Test(arguments: EngineKind.allCases)
    func aLoadedVersionIsConfirmedAndReleasesThePrevious(_ kind: EngineKind) async throws {
        let rig = try Rig()
        try rig.publish(version: 1, files: Rig.site(version: 1))
        _ = try await rig.updater.update(Rig.id)
        let view = try view(kind, rig)
        defer { view.close() }
        try await view.loadAndWait(rig.entryURL(on: kind))
        try await eventually("v1 confirmed") { rig.activeState == "current 1, confirmed" }

        try rig.publish(version: 2, files: Rig.site(version: 2))
        _ = try await rig.updater.update(Rig.id)
        #expect(rig.activeState == "current 2, previous 1, unconfirmed")
        let recorder = EventRecorder(view.engine)
        view.reload()
        try await recorder.loadFinished()
        try await view.engine.waitUntil("document.title == 'Shop v2'")
        try await eventually("v2 confirmed") { rig.activeState == "current 2, confirmed" }
    }

    /// A package page's large byte values take the bridge's byte channel on both engines: on Blink
    /// the channel is a loopback origin, which the package documents' default policy names in
    /// `connect-src` for the view, and a package page (fulfilled by Fetch, so outside the loopback
    /// address space even at a loopback origin) is granted loopback access; without either the page
    /// could not reach it and would fall back to base64.
    @Test(arguments: EngineKind.allCases)
    func aPackagePageSendsLargeBytesThroughTheByteChannel(_ kind: EngineKind) async throws {
        let rig = try Rig()
        try rig.publish(version: 1, files: Rig.site(version: 1))
        _ = try await rig.updater.update(Rig.id)
        var configuration = HybridWebViewConfiguration()
        configuration.package = PackageBinding(installer: rig.installer, id: Rig.id, scheme: rig.scheme(on: kind))
        configuration.modules = [ByteChannelModule(allowedOrigins: [.any])]
        let view = try HybridWebView(provider: try kind.provider(), configuration: configuration)
        defer { view.close() }
        try await view.loadAndWait(rig.entryURL(on: kind))
        let digest = try await view.engine.callAsync("""
            await hybrid.ready;
            const u8 = new Uint8Array(512 << 10);
            for (let i = 0; i < u8.length; i++) u8[i] = (i * 7 + 3) & 255;
            let hash = 0;
            for (let i = 0; i < u8.length; i++) hash = (Math.imul(hash, 31) + u8[i]) >>> 0;
            const got = await hybrid.call('bytes', 'digest', { bytes: u8 });
            return got.size === u8.length && got.hash === hash;
            """)
        #expect(digest == true)
        let channel = try #require(view.bridge.byteChannel, "\(kind) has a byte channel")
        #expect(channel.store.traffic.puts == 1, "the param was posted to the channel, not sent inline")
    }

    @Test(arguments: EngineKind.allCases)
    func aVersionThatCannotLoadIsRolledBackAndTheViewReloads(_ kind: EngineKind) async throws {
        let rig = try Rig()
        try rig.publish(version: 1, files: Rig.site(version: 1))
        _ = try await rig.updater.update(Rig.id)
        let view = try view(kind, rig)
        defer { view.close() }
        let delegate = LifecycleDelegate()
        view.delegate = delegate
        try await view.loadAndWait(rig.entryURL(on: kind))
        try await eventually("v1 confirmed") { rig.activeState == "current 1, confirmed" }

        try rig.publish(version: 2, files: Rig.site(version: 2))
        _ = try await rig.updater.update(Rig.id)
        // v2's entry is lost from the device and the origin is unreachable: its load fails.
        let v2 = try rig.store.activePackage(Rig.id)
        let entry = try #require(v2.manifest.file(at: v2.manifest.entry))
        try FileManager.default.removeItem(at: v2.contentsURL(of: entry))
        rig.originServer.stop()

        view.load(rig.entryURL(on: kind))
        try await eventually("the failure reported") { !delegate.failures.isEmpty }
        try await eventually("the rollback") { rig.store.state(Rig.id).rejected == [2] }
        try await eventually("v1 shown again", timeout: 20) {
            guard !view.engine.isLoading else { return false }
            return (try? await view.engine.evaluate("document.title + ' ' + window.appVersion")) == "Shop v1 1"
        }
        try await eventually("v1 confirmed again") { rig.activeState == "current 1, confirmed" }
        #expect(rig.store.state(Rig.id).rejected == [2])
    }
}
