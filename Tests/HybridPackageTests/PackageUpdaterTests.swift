import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import HybridCrypto
import HybridFixtures
import HybridServer
import Testing

/// Publisher, repository on a real loopback HTTP server, and a client store.
final class UpdateFixture: @unchecked Sendable {
    let root: URL
    let signer: Ed25519Signer
    let verifier: Ed25519Verifier
    let platform = PackagePlatform.native
    let server: RepositoryServer
    let faults = PackageFaults()

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("hk-upd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        signer = try Ed25519Signer.generate()
        verifier = try Ed25519Verifier(publicKey: signer.publicKey)
        server = try RepositoryServer(directory: root.appendingPathComponent("repo"))
    }

    deinit {
        server.server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    var repository: URL { root.appendingPathComponent("repo") }
    var store: PackageStore { PackageStore(.init(root: root.appendingPathComponent("store"), lockTimeout: 10, gcGracePeriod: 0, faults: faults)) }
    var installer: PackageInstaller { PackageInstaller(store: store, platform: platform, verifier: verifier) }
    var updater: PackageUpdater { PackageUpdater(repository: server.url, installer: installer, parallelDownloads: 3, timeout: 10) }

    /// 12 files: text (compressed) and binary-ish (stored).
    static func site(version: Int, changed: Int = 0) -> [String: String] {
        var files: [String: String] = ["index.html": "<!doctype html><title>site</title>" + String(repeating: "<p>page</p>\n", count: 100)]
        for index in 0..<6 { files["js/m\(index).js"] = String(repeating: "export const m\(index) = \(index);\n", count: 60) }
        for index in 0..<5 { files["img/i\(index).png"] = "\u{89}PNG-\(index)-" + String(repeating: "\(index)", count: 3000) }
        for index in 0..<changed { files["js/m\(index).js"] = "export const m\(index) = 'v\(version)';\n" }
        return files
    }

    @discardableResult
    func publish(version: Int, files: [String: String], created: Date = Date(), lifetime: TimeInterval = 86_400) throws -> PackageWriter.Report {
        let site = root.appendingPathComponent("site")
        try? FileManager.default.removeItem(at: site)
        for (path, contents) in files {
            let url = site.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: url)
        }
        let writer = PackageWriter(repository: repository, platform: platform, signer: signer)
        return try writer.pack(site, options: .init(id: "app", version: version, origin: "https://m.example.com/app/",
                                                    created: created, lifetime: lifetime))
    }

    func activeIndex() throws -> String {
        let package = try store.activePackage("app")
        let file = try #require(package.manifest.file(at: try PackagePath("index.html")))
        return String(decoding: try Data(contentsOf: package.contentsURL(of: file)), as: UTF8.self)
    }
}

/// Records progress snapshots from any thread.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [PackageUpdater.Progress] = []
    func record(_ progress: PackageUpdater.Progress) { lock.withLock { items.append(progress) } }
    var all: [PackageUpdater.Progress] { lock.withLock { items } }
}

@Suite(.serialized) struct PackageUpdaterTests {
    @Test func installsThenFetchesOnlyChangedBlobs() async throws {
        let fixture = try UpdateFixture()
        let v1 = try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        let log = ProgressLog()
        let first = try await fixture.updater.update("app") { log.record($0) }
        #expect(first.outcome == .installed(version: 1, previous: nil))
        #expect(first.blobsFetched == 12)
        #expect(first.bytesFetched == v1.manifest.files.reduce(0) { $0 + Int64($1.storedSize) })
        #expect(log.all.last?.phase == .done)
        #expect(log.all.contains { $0.phase == .downloading && $0.bytesReceived == first.bytesFetched && $0.blobsDone == 12 })

        let v2 = try fixture.publish(version: 2, files: UpdateFixture.site(version: 2, changed: 3))
        fixture.server.resetLog()
        let second = try await fixture.updater.update("app")
        #expect(second.outcome == .installed(version: 2, previous: 1))
        #expect(second.blobsFetched == 3)
        #expect(second.blobsReused == 9)
        #expect(fixture.server.blobRequests.count == 3)
        let changed = v2.manifest.files.filter { $0.path.value.hasPrefix("js/m0") || $0.path.value.hasPrefix("js/m1") || $0.path.value.hasPrefix("js/m2") }
        #expect(second.bytesFetched == changed.reduce(0) { $0 + Int64($1.storedSize) })
        #expect(second.fetchedPaths == ["js/m0.js", "js/m1.js", "js/m2.js"])
        // The ideal update: changed blobs as stored + pointer + manifest (its compressed copy) + their
        // signatures, nothing more; the plain manifest is never asked for.
        let documents = try ["packages/app/latest.json", "packages/app/latest.json.sig", "packages/app/2/manifest.json.zlib", "packages/app/2/manifest.json.sig"]
            .reduce(Int64(0)) { $0 + Int64(try Data(contentsOf: fixture.repository.appendingPathComponent($1)).count) }
        #expect(second.documentBytes == documents)
        #expect(!fixture.server.requests.map(\.path).contains("packages/app/2/manifest.json"))
        #expect(try Data(contentsOf: fixture.repository.appendingPathComponent("packages/app/2/manifest.json.zlib")).count * 2
                < Data(contentsOf: fixture.repository.appendingPathComponent("packages/app/2/manifest.json")).count)
        #expect(second.totalBytes == second.bytesFetched + documents)

        let third = try await fixture.updater.update("app")
        #expect(third.upToDate)
        #expect(try await fixture.updater.availablePackages() == ["app"])
    }

    @Test func plainStaticServerIsEnoughIncludingRangeResume() async throws {
        // The repository is static files: HybridServer's generic directory serving (as a CDN or
        // nginx would) is all the updater needs, resume included.
        let fixture = try UpdateFixture()
        let v1 = try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        fixture.server.server.serveDirectory(fixture.repository, at: "/static")
        let big = try #require(v1.manifest.files.max { $0.storedSize < $1.storedSize })
        let full = try Data(contentsOf: fixture.repository.appendingPathComponent(PackageRepositoryLayout.blob(big.blob)))
        let store = fixture.store
        try FileManager.default.createDirectory(at: store.partialDirectory, withIntermediateDirectories: true)
        try full.prefix(1000).write(to: store.partialURL(big.blob))   // left by an interrupted run

        let updater = PackageUpdater(repository: fixture.server.server.url("/static/"), installer: fixture.installer, timeout: 10)
        let report = try await updater.update("app")
        #expect(report.outcome == .installed(version: 1, previous: nil))
        #expect(report.bytesResumed == 1000)
        #expect(report.bytesFetched == v1.manifest.files.reduce(0) { $0 + Int64($1.storedSize) } - 1000)
        #expect(try fixture.activeIndex().contains("page"))
    }

    @Test func badOrMissingSignatureIsRefusedAndActiveKeepsServing() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        _ = try await fixture.updater.update("app")
        try fixture.publish(version: 2, files: UpdateFixture.site(version: 2, changed: 1))

        let stranger = try Ed25519Signer.generate()
        fixture.server.inject { path, _ in
            path == "packages/app/latest.json.sig" ? ServerResponse(body: DetachedSignature.fileData(try! stranger.sign(Data("x".utf8)))) : nil
        }
        await #expect(throws: HybridError.package(.badSignature("pointer"))) { _ = try await fixture.updater.update("app") }
        fixture.server.inject { path, _ in path == "packages/app/2/manifest.json.sig" ? .status(404) : nil }
        await #expect(throws: HybridError.package(.missingSignature("manifest"))) { _ = try await fixture.updater.update("app") }
        fixture.server.inject { path, _ in path == "packages/app/latest.json.sig" ? .status(404) : nil }
        await #expect(throws: HybridError.package(.missingSignature("pointer"))) { _ = try await fixture.updater.update("app") }
        // A manifest swapped on the server (both its plain form and its compressed copy) no longer
        // matches the signed pointer.
        let v1Manifest = try Data(contentsOf: fixture.repository.appendingPathComponent("packages/app/1/manifest.json"))
        let v1Compressed = try Data(contentsOf: fixture.repository.appendingPathComponent("packages/app/1/manifest.json.zlib"))
        fixture.server.inject { path, _ in
            switch path {
            case "packages/app/2/manifest.json": ServerResponse(body: v1Manifest)
            case "packages/app/2/manifest.json.zlib": ServerResponse(body: v1Compressed)
            default: nil
            }
        }
        await #expect { _ = try await fixture.updater.update("app") } throws: { ($0 as? HybridError)?.code == "invalid_manifest" }
        #expect(fixture.store.activeVersion("app") == 1)
        fixture.server.inject(nil)
        #expect(try await fixture.updater.update("app").outcome == .installed(version: 2, previous: 1))
    }

    @Test func versionRollbackOnTheServerIsRefused() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        let oldPointer = try Data(contentsOf: fixture.repository.appendingPathComponent("packages/app/latest.json"))
        let oldSignature = try Data(contentsOf: fixture.repository.appendingPathComponent("packages/app/latest.json.sig"))
        try fixture.publish(version: 2, files: UpdateFixture.site(version: 2, changed: 1))
        _ = try await fixture.updater.update("app")
        // A replayed, validly signed pointer to version 1.
        fixture.server.inject { path, _ in
            switch path {
            case "packages/app/latest.json": ServerResponse(body: oldPointer)
            case "packages/app/latest.json.sig": ServerResponse(body: oldSignature)
            default: nil
            }
        }
        await #expect(throws: HybridError.package(.versionRollback(offered: 1, highestSeen: 2))) { _ = try await fixture.updater.update("app") }
        #expect(fixture.store.activeVersion("app") == 2)
    }

    /// A CDN edge caches a pointer and its signature apart, so for a while it can pair the new
    /// pointer with the old signature: the updater fetches the pair once more past the edge's copies
    /// (`Cache-Control: no-cache`) and updates; a pair that still does not verify is refused.
    @Test func aStaleSignatureAtTheEdgeIsFetchedAgainPastIt() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        _ = try await fixture.updater.update("app")
        let oldSignature = try Data(contentsOf: fixture.repository.appendingPathComponent("packages/app/latest.json.sig"))
        try fixture.publish(version: 2, files: UpdateFixture.site(version: 2, changed: 1))
        let revalidations = Locked(0)
        fixture.server.inject { path, request in
            guard path == "packages/app/latest.json.sig" else { return nil }
            if request.headers["Cache-Control"] == "no-cache" {
                revalidations.mutate { $0 += 1 }
                return nil   // the origin's current signature
            }
            return ServerResponse(body: oldSignature)   // the edge's stale copy
        }
        #expect(try await fixture.updater.update("app").outcome == .installed(version: 2, previous: 1))
        #expect(revalidations.value == 1)
        // An origin whose signature is wrong too: refused after the one retry, nothing changed.
        try fixture.publish(version: 3, files: UpdateFixture.site(version: 3, changed: 1))
        fixture.server.inject { path, _ in path == "packages/app/latest.json.sig" ? ServerResponse(body: oldSignature) : nil }
        await #expect { _ = try await fixture.updater.update("app") } throws: { ($0 as? HybridError)?.code == "bad_signature" }
        #expect(fixture.store.activeVersion("app") == 2)
    }

    @Test func expiredManifestIsRefused() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1), created: Date().addingTimeInterval(-3 * 86_400), lifetime: 86_400)
        await #expect { _ = try await fixture.updater.update("app") } throws: { ($0 as? HybridError)?.code == "expired" }
        #expect(fixture.store.activeVersion("app") == nil)
        #expect(fixture.server.blobRequests.isEmpty)
    }

    @Test func corruptBlobOnTheServerIsRefusedThenRepaired() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        _ = try await fixture.updater.update("app")
        let v2 = try fixture.publish(version: 2, files: UpdateFixture.site(version: 2, changed: 2))
        let target = try #require(v2.manifest.file(at: try PackagePath("js/m0.js")))
        let blobPath = PackageRepositoryLayout.blob(target.blob)
        // Same size, different bytes: only the hash can tell.
        fixture.server.inject { path, _ in path == blobPath ? ServerResponse(body: Data(repeating: 0x41, count: target.storedSize)) : nil }
        await #expect { _ = try await fixture.updater.update("app") } throws: { ($0 as? HybridError)?.code == "corrupt_blob" }
        // Longer than announced: cut off at the manifest's size.
        fixture.server.inject { path, _ in path == blobPath ? ServerResponse(body: Data(repeating: 0x41, count: target.storedSize + 100)) : nil }
        await #expect { _ = try await fixture.updater.update("app") } throws: { ($0 as? HybridError)?.code == "corrupt_blob" }
        #expect(try fixture.activeIndex().contains("page"))
        #expect(fixture.store.activeVersion("app") == 1)
        fixture.server.inject(nil)
        #expect(try await fixture.updater.update("app").outcome == .installed(version: 2, previous: 1))
    }

    @Test func truncatedDownloadResumesWithRange() async throws {
        let fixture = try UpdateFixture()
        let v1 = try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        let big = try #require(v1.manifest.files.max { $0.storedSize < $1.storedSize })
        let blobPath = PackageRepositoryLayout.blob(big.blob)
        let full = try Data(contentsOf: fixture.repository.appendingPathComponent(blobPath))
        let half = full.count / 2
        // The connection "drops" halfway through the largest blob.
        fixture.server.inject { path, _ in path == blobPath ? ServerResponse(body: full.prefix(half)) : nil }
        await #expect { _ = try await fixture.updater.update("app") } throws: { ($0 as? HybridError)?.code == "download_failed" }
        #expect(fixture.store.activeVersion("app") == nil)

        fixture.server.inject(nil)
        fixture.server.resetLog()
        let report = try await fixture.updater.update("app")
        #expect(report.outcome == .installed(version: 1, previous: nil))
        #expect(report.bytesResumed == Int64(half))
        let ranged = fixture.server.requests.filter { $0.path == blobPath }
        #expect(ranged.count == 1)
        #expect(ranged.first?.range == "bytes=\(half)-")
        // Every other blob was already in the store: only the interrupted one was requested.
        #expect(fixture.server.blobRequests == [blobPath])
    }

    @Test func mismatchedContentRangeDiscardsThePartialAndStartsOver() async throws {
        let fixture = try UpdateFixture()
        let v1 = try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        let big = try #require(v1.manifest.files.max { $0.storedSize < $1.storedSize })
        let blobPath = PackageRepositoryLayout.blob(big.blob)
        let full = try Data(contentsOf: fixture.repository.appendingPathComponent(blobPath))
        fixture.server.inject { path, _ in path == blobPath ? ServerResponse(body: full.prefix(100)) : nil }
        await #expect { _ = try await fixture.updater.update("app") } throws: { ($0 as? HybridError)?.code == "download_failed" }
        // A broken cache answers the resume with bytes from the wrong offset.
        fixture.server.inject { path, _ in
            path == blobPath ? ServerResponse(status: 206, headers: ["Content-Range": "bytes 0-\(full.count - 1)/\(full.count)"], body: full) : nil
        }
        await #expect { _ = try await fixture.updater.update("app") } throws: { ($0 as? HybridError)?.code == "download_failed" }
        fixture.server.inject(nil)
        fixture.server.resetLog()
        let report = try await fixture.updater.update("app")
        #expect(report.outcome == .installed(version: 1, previous: nil))
        #expect(report.bytesResumed == 0)
        #expect(fixture.server.requests.first { $0.path == blobPath }?.range == nil)
    }

    @Test func serverErrorMidUpdateLosesNothing() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        _ = try await fixture.updater.update("app")
        let v2 = try fixture.publish(version: 2, files: UpdateFixture.site(version: 2, changed: 4))
        let failing = PackageRepositoryLayout.blob(try #require(v2.manifest.file(at: try PackagePath("js/m3.js"))).blob)
        fixture.server.inject { path, _ in path == failing ? .status(500) : nil }
        await #expect(throws: HybridError.package(.httpStatus(url: fixture.server.url.appendingPathComponent(failing).absoluteString, status: 500))) {
            _ = try await fixture.updater.update("app", progress: nil)
        }
        #expect(fixture.store.activeVersion("app") == 1)
        fixture.server.inject(nil)
        fixture.server.resetLog()
        let report = try await fixture.updater.update("app")
        #expect(report.outcome == .installed(version: 2, previous: 1))
        #expect(fixture.server.blobRequests.contains(failing))
        #expect(report.blobsFetched + report.blobsReused == 12)
    }

    @Test func diskFullDuringDownloadLeavesActiveVersionServing() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        _ = try await fixture.updater.update("app")
        try fixture.publish(version: 2, files: UpdateFixture.site(version: 2, changed: 6))
        fixture.faults.diskFull(afterBytes: 200)
        await #expect { _ = try await fixture.updater.update("app") } throws: { ($0 as? HybridError)?.code == "disk_full" }
        #expect(fixture.store.activeVersion("app") == 1)
        #expect(try fixture.activeIndex().contains("page"))
        fixture.faults.reset()
        #expect(try await fixture.updater.update("app").outcome == .installed(version: 2, previous: 1))
    }

    @Test(arguments: PackageInstaller.Step.allCases)
    func crashDuringInstallThenRestartCompletesWithoutRefetching(_ step: PackageInstaller.Step) async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        _ = try await fixture.updater.update("app")
        try fixture.publish(version: 2, files: UpdateFixture.site(version: 2, changed: 2))
        fixture.faults.crash(at: step)
        await #expect(throws: HybridError.package(.injectedCrash(step.rawValue))) { _ = try await fixture.updater.update("app") }
        #expect(fixture.store.activeVersion("app") == (step == .activated ? 2 : 1))
        fixture.server.resetLog()
        let report = try await fixture.updater.update("app")
        #expect(fixture.store.activeVersion("app") == 2)
        #expect(report.upToDate == (step == .activated))
        #expect(fixture.server.blobRequests.isEmpty)
    }

    @Test func downloadsRunInParallelWithinTheBound() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        let delay = 0.15
        fixture.server.inject { path, _ in
            guard path.hasPrefix("blobs/"), let data = FileManager.default.contents(atPath: fixture.repository.appendingPathComponent(path).path) else { return nil }
            return ServerResponse(body: data, delay: .milliseconds(Int(delay * 1000)))
        }
        var updater = fixture.updater
        updater.parallelDownloads = 3
        _ = try await updater.update("app")
        // Inferred from arrival times and the server's hold only (no wall-clock threshold on the
        // update): the server answers a blob no sooner than `delay` after it arrived, so every
        // request that arrived less than `delay` before another was still unanswered then.
        let arrivals = fixture.server.requests.filter { $0.path.hasPrefix("blobs/") }.map(\.time).sorted()
        #expect(arrivals.count == 12)
        let unanswered = arrivals.map { arrival in arrivals.filter { $0 <= arrival && arrival.timeIntervalSince($0) < delay }.count }
        // At most 3 in flight: no request arrives while 3 others are still being answered...
        #expect(unanswered.allSatisfy { $0 <= 3 }, "\(unanswered)")
        // ...and they did overlap (one at a time, each would arrive at least `delay` after the last).
        #expect(unanswered.contains { $0 >= 2 }, "\(unanswered)")
    }

    @Test func twoUpdatersOnOneStoreDoNotCorruptIt() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        fixture.server.inject { path, request in
            // Slow blobs, so both updaters really overlap.
            guard path.hasPrefix("blobs/"), let data = FileManager.default.contents(atPath: fixture.repository.appendingPathComponent(path).path) else { return nil }
            return ServerResponse(body: data, delay: .milliseconds(30))
        }
        async let a = fixture.updater.update("app")
        async let b = fixture.updater.update("app")
        let reports = try await [a, b]
        #expect(reports.contains { $0.outcome == .installed(version: 1, previous: nil) })
        // Each blob crossed the network once: the second updater waited for the first's download.
        let manifest = try fixture.store.activePackage("app").manifest
        #expect(reports.reduce(0) { $0 + $1.bytesFetched } == manifest.files.reduce(0) { $0 + Int64($1.storedSize) })
        #expect(fixture.store.activeVersion("app") == 1)
        let package = try fixture.store.activePackage("app")
        for file in package.manifest.files {
            let data = try Data(contentsOf: package.contentsURL(of: file))
            #expect(fixture.platform.digests.sha256Hex(data) == file.sha256)
        }
        let partials = (try? FileManager.default.contentsOfDirectory(atPath: fixture.store.partialDirectory.path)) ?? []
        #expect(partials.isEmpty)
    }
}

/// The updater records each update's outcome for health (docs/health.md) when given a recorder.
@Suite("Package updater: health")
struct PackageUpdaterHealthTests {
    final class Events: HealthSink, @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [HealthEvent] = []
        func record(_ event: HealthEvent) { lock.withLock { kept.append(event) } }
        var all: [HealthEvent] { lock.withLock { kept } }
    }

    @Test func everyUpdateOutcomeIsRecordedWithItsRelease() async throws {
        let fixture = try UpdateFixture()
        let events = Events()
        var updater = fixture.updater
        updater.health = HealthRecorder(sinks: [events])
        updater.healthEngine = "webkit"
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        let first = try await updater.update("app")
        _ = try await updater.update("app")   // nothing newer
        fixture.server.inject { path, _ in path == "packages/app/latest.json" ? .status(500) : nil }
        await #expect(throws: HybridError.self) { _ = try await updater.update("app") }

        let updates = events.all.compactMap { event -> (String, Int, Int?, String)? in
            guard case .update(let way, let bytes, _) = event.kind else { return nil }
            return (way, bytes, event.context.packageVersion, event.context.engine)
        }
        #expect(updates.map(\.0) == ["full", "none", "failed"])
        #expect(updates[0].1 == Int(first.totalBytes) && updates[0].1 > 0)
        #expect(updates.map(\.2) == [1, 1, 1])
        #expect(updates.allSatisfy { $0.3 == "webkit" })
        #expect(events.all.allSatisfy { $0.context.packageID == "app" })
    }
}
