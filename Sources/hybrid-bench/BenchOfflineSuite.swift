#if os(Linux)
import Foundation
import HybridCore
import HybridCrypto
import HybridGTK
import HybridServer

/// `hybrid bench offline`: the same 60-file page opened from an installed offline package and
/// from HTTP on loopback (plain, and with 40 ms added per response as a stand-in for a mobile
/// network), then an incremental update's bytes against the least it could fetch.
enum OfflineBenchSuite: BenchSuite {
    static let name = "offline"
    static let keys = """
        Packs a generated 60-file page (HTML, 15 CSS, 24 JS, 20 PNG) with a fresh key, installs it with
        PackageUpdater from a repository on HybridServer, and loads it N times (default 11, median) per
        way, round-robin, each way in its own view reused for every load, from navigation start to load
        finished; each load is checked complete (all scripts ran, all images decoded) and must reach the
        server or scheme handler for all 60 files. Nothing is cached between loads: HTTP answers with
        Cache-Control: no-store, and conditional headers are stripped before the package handler so it
        answers every file in full, as on a first visit.
        package_load_ms    from the installed package, through PackageSchemeHandler on a custom scheme
        http_load_ms       the same files from LoopbackServer (StaticFiles, gzip for text) on 127.0.0.1
        http40_load_ms     the same with every response held back 40 ms (ServerResponse.delay)
        speedup_vs_http, speedup_vs_http40   http(40)_load_ms / package_load_ms
        Then changes 3 of the 60 files (CSS, JS, PNG), packs version 2 and updates the store:
        update_bytes       response-body bytes the repository served the update (pointer, manifest,
                           signatures, blobs and patches; no transport gzip), checked equal to the updater's own count
        full_bytes         the same for a full install of version 2 into an empty store
        ideal_bytes        per changed file its patch from version 1 or else its blob as stored,
                           + the compressed manifest + pointer + both signatures
        manifest_bytes     the version 2 manifest alone, uncompressed (clients fetch its zlib copy)
        update_efficiency  update_bytes / ideal_bytes (1.0 = nothing fetched that was not needed)
        loads, files, page_bytes, changed_files   what was measured
        """

    static let id = "bench-page"
    static let scheme = "bench-app"
    static let origin = "https://m.bench.hybridkit.invalid/page/"

    @MainActor static func run(_ options: BenchOptions) async throws -> BenchReport {
        let loads = options.iterations ?? 11
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hk-bench-offline-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let site1 = root.appendingPathComponent("site-1"), site2 = root.appendingPathComponent("site-2")
        let repository = root.appendingPathComponent("repo")
        try BenchOfflinePage.write(BenchOfflinePage.files(version: 1), to: site1)
        try BenchOfflinePage.write(BenchOfflinePage.files(version: 2), to: site2)
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)

        let signer = try Ed25519Signer.generate()
        let platform = PackagePlatform.native
        let writer = PackageWriter(repository: repository, platform: platform, signer: signer)
        let v1 = try writer.pack(site1, options: .init(id: id, version: 1, origin: origin))

        let server = try LoopbackServer()
        defer { server.stop() }
        let repositoryTally = Tally(), siteTally = Tally()
        // No transport gzip for the repository: bytes on the wire are then bytes as stored, the
        // unit of ideal_bytes (blobs are compressed at pack time where it pays).
        var repositoryFiles = StaticFiles(root: repository, prefix: "/repo")
        repositoryFiles.gzip = false
        let repositoryRoute = repositoryFiles
        server.route("/repo") { repositoryTally.count(repositoryRoute.respond(to: $0)) }
        var siteFiles = StaticFiles(root: site1, prefix: "/site")
        siteFiles.cacheControl = "no-store"
        var slowFiles = StaticFiles(root: site1, prefix: "/site40")
        slowFiles.cacheControl = "no-store"
        let plain = siteFiles, slow = slowFiles
        server.route("/site") { siteTally.count(plain.respond(to: $0)) }
        server.route("/site40") { siteTally.count(slow.respond(to: $0).delayed(by: .milliseconds(40))) }

        let verifier = try Ed25519Verifier(publicKey: signer.publicKey)
        let store = PackageStore(root: root.appendingPathComponent("store"))
        let installer = PackageInstaller(store: store, platform: platform, verifier: verifier)
        let updater = PackageUpdater(repository: server.url("/repo/"), installer: installer)
        _ = try await updater.update(id)

        // Page loads: one view per way, reused; the ways take turns so each sees the same machine load.
        let provider = try options.makeProvider()
        // WebKit serves the package on a custom scheme; Blink cannot navigate to one and serves
        // it at its real https origin (interceptsHTTP). Same handler, same resolver.
        let servedScheme = provider.capabilities.contains(.customSchemeNavigation) ? scheme : "https"
        let packageTally = Tally()
        let handler = PackageSchemeHandler(store: store, id: id, customScheme: scheme)
        let firstVisit = ClosureSchemeHandler { request in
            var request = request
            request.headers.removeAll { ["if-none-match", "if-modified-since"].contains($0.name.lowercased()) }
            return packageTally.count(try await handler.respond(to: request))
        }
        let packageView = try provider.makeEngine(EngineConfiguration(schemeHandlers: [servedScheme: firstVisit]))
        let httpView = try provider.makeEngine(EngineConfiguration())
        let http40View = try provider.makeEngine(EngineConfiguration())
        defer { [packageView, httpView, http40View].forEach { $0.close() } }
        let packageEntry = origin.replacingOccurrences(of: "https:", with: servedScheme + ":") + "index.html"
        let ways: [(view: any WebEngine, url: String, tally: Tally)] = [
            (packageView, packageEntry, packageTally),
            (httpView, server.url("/site/index.html").absoluteString, siteTally),
            (http40View, server.url("/site40/index.html").absoluteString, siteTally),
        ]
        var times: [[Double]] = Array(repeating: [], count: ways.count)
        let warmUp = 2
        for round in 0..<(warmUp + loads) {
            for offset in 0..<ways.count {
                let index = (round + offset) % ways.count
                let way = ways[index]
                let milliseconds = try await timedLoad(way.view, URL(string: "\(way.url)?load=\(round)")!, tally: way.tally)
                if round >= warmUp { times[index].append(milliseconds) }
            }
            if round == 0 { try installer.markLoaded(id) }   // as an app does after the first good load
        }
        let medians = times.map(benchMedian)

        // The incremental update: version 2 changes 3 files.
        let v2 = try writer.pack(site2, options: .init(id: id, version: 2, origin: origin))
        repositoryTally.reset()
        let update = try await updater.update(id)
        let updateBytes = repositoryTally.bytes
        // The server's count and the updater's own must agree, and only the changed files may come.
        guard update.fetchedPaths == BenchOfflinePage.changed.sorted(), update.totalBytes == Int64(updateBytes) else {
            throw benchFailure("the update fetched \(update.fetchedPaths) (\(update.totalBytes) bytes by its count, \(updateBytes) served)")
        }
        _ = try await timedLoad(packageView, URL(string: packageEntry + "?load=v2")!, tally: packageTally)
        guard try await packageView.evaluate("window.__version") == 2 else { throw benchFailure("version 2 did not load") }

        let freshStore = PackageStore(root: root.appendingPathComponent("store-full"))
        let freshUpdater = PackageUpdater(repository: server.url("/repo/"),
                                          installer: PackageInstaller(store: freshStore, platform: platform, verifier: verifier))
        repositoryTally.reset()
        _ = try await freshUpdater.update(id)
        let fullBytes = repositoryTally.bytes

        // The least this repository lets the update fetch: per changed file its patch from version 1's
        // content when there is one (else the blob as stored), the compressed manifest, the pointer
        // and both signatures.
        let oldBlobs = Set(v1.manifest.files.map(\.blob)), oldContents = Set(v1.manifest.files.map(\.sha256))
        var ideal = v2.manifest.files.filter { !oldBlobs.contains($0.blob) }.reduce(0) { total, file in
            total + ((file.patches ?? []).filter { oldContents.contains($0.base) }.map(\.size) + [file.storedSize]).min()!
        }
        let pointer = PackageRepositoryLayout.pointer(id: id), sig = PackageRepositoryLayout.signatureSuffix
        let manifestCopy = platform.compressor.map { v2.manifestPath + "." + $0.encoding } ?? v2.manifestPath
        for document in [manifestCopy, v2.manifestPath + sig, pointer, pointer + sig] {
            ideal += try fileSize(repository.appendingPathComponent(document))
        }

        return BenchReport(values: [
            ("package_load_ms", medians[0]), ("http_load_ms", medians[1]), ("http40_load_ms", medians[2]),
            ("speedup_vs_http", medians[1] / medians[0]), ("speedup_vs_http40", medians[2] / medians[0]),
            ("loads", Double(loads)), ("files", Double(v1.manifest.files.count)),
            ("page_bytes", Double(v1.manifest.files.reduce(0) { $0 + $1.size })),
            ("changed_files", Double(update.fetchedPaths.count)),
            ("update_bytes", Double(updateBytes)), ("full_bytes", Double(fullBytes)), ("ideal_bytes", Double(ideal)),
            ("manifest_bytes", Double(try fileSize(repository.appendingPathComponent(v2.manifestPath)))),
            ("update_efficiency", Double(updateBytes) / Double(ideal)),
        ])
    }

    /// Loads `url` and returns navigation start → load finished in milliseconds, after checking
    /// the page is whole and every one of its files was asked of the server or handler.
    @MainActor private static func timedLoad(_ engine: any WebEngine, _ url: URL, tally: Tally) async throws -> Double {
        let requestsBefore = tally.requests
        let clock = ContinuousClock()
        var token: ObservationToken?
        defer { token?.cancel() }
        let elapsed: Duration = try await withCheckedThrowingContinuation { continuation in
            var resumed = false
            let start = clock.now
            token = engine.observe { event in
                guard !resumed else { return }
                switch event {
                case .loadFinished:
                    resumed = true
                    continuation.resume(returning: clock.now - start)
                case .loadFailed(_, let message, false):
                    resumed = true
                    continuation.resume(throwing: benchFailure("\(url) failed: \(message)"))
                default: break
                }
            }
            engine.load(url)
        }
        guard try await engine.evaluate("!!(\(BenchOfflinePage.completeCheck))") == true else {
            throw benchFailure("\(url) finished loading incomplete")
        }
        let requests = tally.requests - requestsBefore
        guard requests >= BenchOfflinePage.fileCount else {
            throw benchFailure("\(url) reached its server \(requests) times for \(BenchOfflinePage.fileCount) files: something was cached")
        }
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    private static func fileSize(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
    }

    private static func benchFailure(_ message: String) -> HybridError {
        HybridError.engine(.native(domain: "bench offline", code: 1, message: message))
    }
}

/// Requests and response-body bytes a server route or scheme handler answered (any thread).
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var counts = (requests: 0, bytes: 0)

    var requests: Int { lock.withLock { counts.requests } }
    var bytes: Int { lock.withLock { counts.bytes } }
    func reset() { lock.withLock { counts = (0, 0) } }

    func count(_ response: ServerResponse) -> ServerResponse {
        lock.withLock { counts = (counts.requests + 1, counts.bytes + response.body.count) }
        return response
    }

    func count(_ response: SchemeResponse) -> SchemeResponse {
        let length: Int
        switch response.body {
        case .data(let data): length = data.count
        case .stream(_, let declared): length = Int(declared ?? 0)
        }
        lock.withLock { counts = (counts.requests + 1, counts.bytes + length) }
        return response
    }
}
#endif
