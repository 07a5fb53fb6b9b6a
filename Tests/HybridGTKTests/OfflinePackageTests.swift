import Foundation
import HybridCore
import HybridFixtures
import Testing

/// Issue 5 end to end: a package published with a fresh key, fetched by the updater from
/// HybridServer, served by `PackageSchemeHandler` into a real WebKitGTK view.
@Suite("Offline packages in the real engine", .serialized)
@MainActor
struct OfflinePackageTests {
    typealias Rig = OfflinePackageRig

    @Test(arguments: EngineKind.allCases)
    func installedPackageServesThePageItsResourcesAndHeaders(_ kind: EngineKind) async throws {
        let rig = try Rig()
        try rig.publish(version: 1, files: Rig.site(version: 1))
        let report = try await rig.updater.update(Rig.id)
        #expect(report.outcome == .installed(version: 1, previous: nil))
        #expect(report.blobsFetched == 5)

        let seen = Locked<[String]>([])
        let engine = try rig.makeEngine(kind, seen: seen)
        defer { engine.close() }
        try await engine.loadAndWait(rig.entryURL(on: kind))
        // The DOM's title, not `engine.title`: WebKit's title notification can land after load-finished.
        #expect(try await engine.evaluate("document.title") == "Shop v1")
        // Relative CSS, JS and image resolved against the custom-scheme document and applied.
        let page = try await engine.callAsync("""
            const logo = document.getElementById('logo');
            if (!logo.complete) await new Promise(r => logo.addEventListener('load', r, {once: true}));
            return {headline: document.getElementById('headline').textContent,
                    color: getComputedStyle(document.getElementById('headline')).color,
                    version: window.appVersion, width: logo.naturalWidth, height: logo.naturalHeight};
            """)
        #expect(page == ["headline": "Welcome to v1", "color": "rgb(10, 20, 30)", "version": 1, "width": 6, "height": 4])
        // Everything so far came from the store: the origin saw nothing.
        #expect(rig.originRequests.value.isEmpty)

        let headers = try await engine.callAsync("""
            const out = {};
            for (const path of ['index.html', 'css/site.css', 'js/app.js', 'img/logo.png', 'media/tone.bin']) {
                const r = await fetch(path);
                out[path] = {status: r.status, type: r.headers.get('Content-Type'), csp: r.headers.get('Content-Security-Policy'),
                             etag: r.headers.get('ETag'), cache: r.headers.get('Cache-Control')};
            }
            return out;
            """)
        #expect(headers["index.html"]?["type"] == "text/html; charset=utf-8")
        #expect(headers["css/site.css"]?["type"] == "text/css; charset=utf-8")
        #expect(headers["js/app.js"]?["type"] == "text/javascript; charset=utf-8")
        #expect(headers["img/logo.png"]?["type"] == "image/png")
        #expect(headers["media/tone.bin"]?["type"] == "application/octet-stream")
        #expect(headers["index.html"]?["csp"]?.stringValue?.contains("object-src 'none'") == true)
        #expect(headers["css/site.css"]?["csp"] == .null)   // the policy belongs to documents
        #expect(headers["js/app.js"]?["cache"] == "no-cache")
        let cssSHA = try rig.store.activePackage(Rig.id).manifest.file(at: PackagePath("css/site.css"))?.sha256
        #expect(headers["css/site.css"]?["etag"]?.stringValue == cssSHA.map { "\"\($0)\"" })
        // The header is enforced, not just sent: the default policy has no 'unsafe-eval', so the
        // page's own script could not eval.
        #expect(try await engine.evaluate("window.evalProbe") == "EvalError")

        let range = try await engine.callAsync("""
            const r = await fetch('media/tone.bin', {headers: {Range: 'bytes=100-199'}});
            const b = new Uint8Array(await r.arrayBuffer());
            const past = await fetch('media/tone.bin', {headers: {Range: 'bytes=5000-'}});
            return {status: r.status, range: r.headers.get('Content-Range'), length: b.length, first: b[0], last: b[b.length - 1],
                    past: past.status, pastRange: past.headers.get('Content-Range')};
            """)
        #expect(range == ["status": 206, "range": "bytes 100-199/4096", "length": 100, "first": 100, "last": 199,
                          "past": 416, "pastRange": "bytes */4096"])

        rig.originRequests.set([])
        let hostile = try await engine.callAsync("""
            const out = {};
            for (const path of ['/%2e%2e/%2e%2e/etc/passwd', '/app/..%2f..%2fkeys%2fprivate', '/app/%2e%2e%2f%2e%2e%2fkeys/private',
                                '/app/%252e%252e/%252e%252e/keys/private', '/app/css/..%5c..%5cindex.html', '/app/%2fetc/passwd']) {
                const r = await fetch(path);
                out[path] = {status: r.status, body: (await r.text()).slice(0, 40)};
            }
            return out;
            """)
        #expect(hostile.objectValue?.count == 6)
        for (path, answer) in hostile.objectValue ?? [:] {
            #expect(answer["status"] == 404, "\(path) → \(answer)")
            #expect(answer["body"]?.stringValue?.contains("Welcome") == false, "\(path) served a package file")
        }
        // The page's URL parser folds `%2e%2e` itself (it reaches us as `/etc/passwd`, outside the
        // package, so the origin answers 404); every other form reached the resolver and was
        // refused there, never forwarded.
        #expect(rig.originRequests.value == ["/etc/passwd"])
        #expect(seen.value.contains { $0.hasSuffix("/app/..%2f..%2fkeys%2fprivate") })

        let fallback = try await engine.callAsync("""
            const hit = await fetch('network-only.txt');
            const miss = await fetch('missing.js');
            return {status: hit.status, text: await hit.text(), missing: miss.status};
            """)
        #expect(fallback == ["status": 200, "text": "from the network origin", "missing": 404])
        #expect(rig.originRequests.value.suffix(2) == ["/app/network-only.txt", "/app/missing.js"])
    }

    @Test(arguments: EngineKind.allCases)
    func updateReloadShowsNewContentAndMarkLoadedReleasesThePrevious(_ kind: EngineKind) async throws {
        let rig = try Rig()
        try rig.publish(version: 1, files: Rig.site(version: 1))
        _ = try await rig.updater.update(Rig.id)
        let engine = try rig.makeEngine(kind)
        defer { engine.close() }
        try await engine.loadAndWait(rig.entryURL(on: kind))
        #expect(try await engine.evaluate("document.title") == "Shop v1")
        try rig.installer.markLoaded(Rig.id)
        let oldCSS = try #require(try rig.store.activePackage(Rig.id).manifest.file(at: PackagePath("css/site.css")))

        try rig.publish(version: 2, files: Rig.site(version: 2))
        let report = try await rig.updater.update(Rig.id)
        #expect(report.outcome == .installed(version: 2, previous: 1))
        #expect(report.fetchedPaths == ["css/site.css", "index.html", "js/app.js"])
        #expect(report.blobsReused == 2)

        let recorder = EventRecorder(engine)
        engine.reload()
        try await recorder.loadFinished()
        #expect(try await engine.evaluate("document.title") == "Shop v2")
        #expect(try await engine.evaluate("getComputedStyle(document.getElementById('headline')).color + ' ' + window.appVersion")
                == "rgb(200, 100, 50) 2")
        #expect(rig.activeState == "current 2, previous 1, unconfirmed")
        #expect(rig.store.hasBlob(oldCSS.sha256))   // kept until v2 has loaded once

        try rig.installer.markLoaded(Rig.id)
        #expect(rig.activeState == "current 2, confirmed")
        #expect(!rig.store.hasBlob(oldCSS.sha256))  // v1's own blobs are collected once v2 is confirmed
        let logo = try #require(try rig.store.activePackage(Rig.id).manifest.file(at: PackagePath("img/logo.png")))
        #expect(rig.store.hasBlob(logo.sha256))
    }

    /// Issue 17 end to end: v1 installed from HybridServer, v2 changes one line of a 60 KB script,
    /// the update fetches a byte-level patch for it (the report says so, with its bytes), and the
    /// page shows v2.
    @Test(arguments: EngineKind.allCases)
    func oneLineChangeArrivesAsAPatchAndThePageShowsIt(_ kind: EngineKind) async throws {
        let rig = try Rig()
        func site(_ version: Int) -> [String: Data] {
            var files = Rig.site(version: 1)
            files["index.html"] = Data("""
                <!doctype html><html><head><meta charset="utf-8"><title>Bundle</title>
                <script src="js/bundle.js"></script></head><body><h1 id="headline">bundle</h1></body></html>
                """.utf8)
            files["js/bundle.js"] = Rig.bundle(version: version)
            return files
        }
        try rig.publish(version: 1, files: site(1))
        _ = try await rig.updater.update(Rig.id)
        let engine = try rig.makeEngine(kind)
        defer { engine.close() }
        try await engine.loadAndWait(rig.entryURL(on: kind))
        #expect(try await engine.evaluate("window.bundleVersion + ':' + m599(0, {createElement: (...a) => a.length}, () => ({}))") == "1:3")
        try rig.installer.markLoaded(Rig.id)

        let v2 = try rig.publish(version: 2, files: site(2))
        let bundle = try #require(v2.manifest.file(at: PackagePath("js/bundle.js")))
        let patch = try #require(bundle.patches?.first)
        let report = try await rig.updater.update(Rig.id)
        #expect(report.outcome == .installed(version: 2, previous: 1))
        let file = try #require(report.files.first { $0.path == "js/bundle.js" })
        #expect(file.way == .patch)
        #expect(file.bytesFetched == Int64(patch.size))
        #expect(file.fullBytes == Int64(bundle.storedSize))
        #expect(file.bytesFetched * 20 < file.fullBytes, "patch \(file.bytesFetched) B, full blob \(file.fullBytes) B")
        #expect(report.files.filter { $0.way != .installed }.map(\.path) == ["js/bundle.js"])
        #expect(report.bytesFetched == Int64(patch.size))

        let recorder = EventRecorder(engine)
        engine.reload()
        try await recorder.loadFinished()
        #expect(try await engine.evaluate("window.bundleVersion + ':' + m599(0, {createElement: (...a) => a.length}, () => ({}))") == "2:3")
        #expect(rig.activeState == "current 2, previous 1, unconfirmed")
    }

    /// Issue 17 §3: files zeroed and truncated between two launches are found by the launch check
    /// before the page is served, repaired from the repository, and the page is whole again.
    @Test(arguments: EngineKind.allCases)
    func launchIntegrityRepairsFilesDamagedBetweenLaunches(_ kind: EngineKind) async throws {
        let rig = try Rig()
        try rig.publish(version: 1, files: Rig.site(version: 1))
        _ = try await rig.updater.update(Rig.id)
        let integrity = PackageIntegrity(installer: rig.installer)
        let look = "getComputedStyle(document.getElementById('headline')).color + ' ' + window.appVersion"

        // Launch 1: the first check after activation hashes every file.
        let first = try await integrity.checkAtLaunch(Rig.id, repairFrom: rig.updater)
        #expect(first.depth == .full && first.isIntact && first.hashed == 5)
        let engine = try rig.makeEngine(kind)
        try await engine.loadAndWait(rig.entryURL(on: kind))
        #expect(try await engine.evaluate(look) == "rgb(10, 20, 30) 1")
        engine.close()

        // Between launches (a crash, a power cut): the script zeroed in place, the style sheet truncated.
        let package = try rig.store.activePackage(Rig.id)
        let script = package.contentsURL(of: try #require(package.manifest.file(at: PackagePath("js/app.js"))))
        let sheet = package.contentsURL(of: try #require(package.manifest.file(at: PackagePath("css/site.css"))))
        let handle = try FileHandle(forWritingTo: script)
        try handle.write(contentsOf: Data(count: try Data(contentsOf: script).count))
        try handle.close()
        try Data("#he".utf8).write(to: sheet)

        // Launch 2: the quick check finds both, the repository restores them, the page is whole.
        let second = try await integrity.checkAtLaunch(Rig.id, repairFrom: rig.updater)
        #expect(second.depth == .quick)
        #expect(second.damaged == ["css/site.css", "js/app.js"])
        #expect(second.repaired == ["css/site.css", "js/app.js"])
        #expect(second.unrepaired.isEmpty && second.rolledBackTo == nil)
        let relaunched = try rig.makeEngine(kind)
        defer { relaunched.close() }
        try await relaunched.loadAndWait(rig.entryURL(on: kind))
        #expect(try await relaunched.evaluate(look) == "rgb(10, 20, 30) 1")
        // All from the store (Chromium asks the origin for a favicon the package lacks, as it may).
        #expect(rig.originRequests.value.filter { $0 != "/favicon.ico" }.isEmpty)
    }

    @Test(arguments: EngineKind.allCases)
    func aFailedLoadRollsBackToThePreviousVersion(_ kind: EngineKind) async throws {
        let rig = try Rig()
        try rig.publish(version: 1, files: Rig.site(version: 1))
        _ = try await rig.updater.update(Rig.id)
        let engine = try rig.makeEngine(kind)
        defer { engine.close() }
        try await engine.loadAndWait(rig.entryURL(on: kind))
        try rig.installer.markLoaded(Rig.id)

        try rig.publish(version: 2, files: Rig.site(version: 2))
        _ = try await rig.updater.update(Rig.id)
        // v2 cannot load: its entry's blob is lost from the device and the origin is unreachable,
        // so the scheme handler's network fallback fails and the engine reports a failed load.
        let v2 = try rig.store.activePackage(Rig.id)
        let entry = try #require(v2.manifest.file(at: v2.manifest.entry))
        try FileManager.default.removeItem(at: v2.contentsURL(of: entry))
        rig.originServer.stop()

        let recorder = EventRecorder(engine)
        engine.load(rig.entryURL(on: kind))
        try await recorder.next("v2 load to fail", timeout: 20) {
            if case .loadFailed(_, _, false) = $0 { return true }
            return false
        }
        // The app's policy on a failed load: roll back and load again.
        #expect(try rig.installer.rollback(Rig.id) == 1)
        try await eventually("the failed load to settle") { !engine.isLoading }
        try await engine.loadAndWait(rig.entryURL(on: kind))
        try await engine.waitUntil("document.title == 'Shop v1'")
        #expect(try await engine.evaluate("window.appVersion") == 1)
        try rig.installer.markLoaded(Rig.id)
        #expect(rig.activeState == "current 1, confirmed")
        #expect(rig.store.state(Rig.id).rejected == [2])
        // The rejected version is never installed again, even though the repository still offers it.
        let again = try await rig.updater.update(Rig.id)
        #expect(again.upToDate)
        #expect(rig.store.activeVersion(Rig.id) == 1)
    }
}
