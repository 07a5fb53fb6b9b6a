#if os(Linux)
import Foundation
import Glibc
import HybridCore
import HybridCrypto
import HybridServer

/// `hybrid bench update`: byte-level patches against `bsdiff` on a generated multi-megabyte
/// bundle, and what the updater really fetches for them in a 60-file app over HTTP.
enum UpdateBenchSuite: BenchSuite {
    static let name = "update"
    static let usesEngine = false
    static let keys = """
        Generates a deterministic 4 MB minified-looking JS bundle (BenchBundle: a webpack-style module
        table, repeated identifiers; zlib takes it to about a third), a one-line edit of it (a guard
        inserted in the middle module) and a release (statements rewritten in modules spread through
        the file until 5 % of its bytes are touched, plus two added ~20 KB modules). Puts the bundle in
        the 60-file page of `bench offline` (as js/m23.js) and packs v1 (original), v2 (one line), v3
        (release) with `hybrid pack`'s defaults (patch depth 3, zstd level 19 + long matching, dcz).
        oneline_patch_bytes       the patch v2's manifest lists for the bundle from v1's content
        oneline_bsdiff_bytes      `bsdiff` (Debian's, run as a subprocess) between the same two files
        oneline_full_bytes        the bundle's full blob as the repository stores it (zlib)
        oneline_total_bytes       everything a client on v1 fetched to update to v2, counted by the
                                  server: pointer, signatures, compressed manifest, patch (checked equal
                                  to the updater's own count, and its report says "patch" for the bundle)
        oneline_file_level_bytes  what a file-level update would have fetched (updater's report)
        release_patch_bytes, release_bsdiff_bytes, release_full_bytes   the same for v1 → v3
        release_file_level_bytes  what a file-level update of the app fetches for the release
        release_total_bytes       what the updater fetched for v1 → v3 (served bytes)
        full_app_bytes            what a full install of v3 into an empty store fetched
        patch_vs_bsdiff           release_patch_bytes / release_bsdiff_bytes (≤ 1.0: zstd beats the anchor)
        oneline_patch_vs_bsdiff   oneline_patch_bytes / oneline_bsdiff_bytes
        apply_ms                  median time to apply the release patch as the updater does (base
                                  mapped from disk, decode, size and SHA-256 check)
        apply_peak_growth_mb      peak resident memory growth while applying it (Linux VmHWM after
                                  resetting it through /proc/self/clear_refs)
        apply_memory_ratio        apply_peak_growth_mb / the bundle's size (base + result ≈ 2)
        patch_make_ms, bsdiff_ms  time to make the release patch / the bsdiff patch (publisher side)
        manifest_bytes, manifest_compressed_bytes   v2's manifest and the copy clients fetch
        bundle_bytes, release_touched_fraction, files   what was measured
        """

    static let id = "bench-update"
    static let origin = "https://m.bench.hybridkit.invalid/update/"
    static let bundlePath = "js/m23.js"

    @MainActor static func run(_ options: BenchOptions) async throws -> BenchReport {
        let bsdiff = "/usr/bin/bsdiff"
        guard FileManager.default.isExecutableFile(atPath: bsdiff) else {
            throw failure("bench update needs bsdiff as its anchor (apt-get install bsdiff; scripts/bootstrap.sh does)")
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hk-bench-update-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let platform = PackagePlatform.native
        guard platform.delta != nil, let compressor = platform.compressor else { throw failure("this build has no zstd or zlib") }

        let original = BenchBundle(bytes: 4 << 20)
        let release = original.release()
        let v1 = original.data, v2 = original.oneLineEdit().data, v3 = release.bundle.data

        // The anchor, on the same files, as a subprocess.
        let files = root.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        for (name, data) in [("v1", v1), ("v2", v2), ("v3", v3)] { try data.write(to: files.appendingPathComponent(name)) }
        let onelineBsdiff = try runBsdiff(bsdiff, files, "v1", "v2").bytes
        let releaseBsdiff = try runBsdiff(bsdiff, files, "v1", "v3")

        // Publish three versions of the 60-file app with the bundle in it.
        let signer = try Ed25519Signer.generate()
        let repository = root.appendingPathComponent("repo")
        let writer = PackageWriter(repository: repository, platform: platform, signer: signer)
        var reports: [PackageWriter.Report] = []
        var packMilliseconds: [Double] = []
        func publish(_ version: Int, bundle: Data) throws {
            var site = BenchOfflinePage.files(version: 1)
            site[bundlePath] = bundle
            let directory = root.appendingPathComponent("site-\(version)")
            try BenchOfflinePage.write(site, to: directory)
            let start = ContinuousClock.now
            reports.append(try writer.pack(directory, options: .init(id: id, version: version, origin: origin)))
            packMilliseconds.append(milliseconds(ContinuousClock.now - start))
        }
        try publish(1, bundle: v1)

        let server = try LoopbackServer()
        defer { server.stop() }
        let tally = Tally()
        var repositoryFiles = StaticFiles(root: repository, prefix: "/repo")
        repositoryFiles.gzip = false   // bytes on the wire are bytes as stored
        let route = repositoryFiles
        server.route("/repo") { tally.count(route.respond(to: $0)) }
        let verifier = try Ed25519Verifier(publicKey: signer.publicKey)
        func updater(_ name: String) -> PackageUpdater {
            let store = PackageStore(root: root.appendingPathComponent(name))
            return PackageUpdater(repository: server.url("/repo/"), installer: PackageInstaller(store: store, platform: platform, verifier: verifier))
        }
        let onelineClient = updater("store-oneline"), releaseClient = updater("store-release")
        _ = try await onelineClient.update(id)
        _ = try await releaseClient.update(id)

        try publish(2, bundle: v2)
        tally.reset()
        let oneline = try await onelineClient.update(id)
        let onelineServed = tally.bytes
        try check(oneline, served: onelineServed, expected: v2, store: onelineClient.installer.store)

        try publish(3, bundle: v3)
        tally.reset()
        let released = try await releaseClient.update(id)
        let releaseServed = tally.bytes
        try check(released, served: releaseServed, expected: v3, store: releaseClient.installer.store)
        tally.reset()
        _ = try await updater("store-full").update(id)
        let fullApp = tally.bytes

        let onelineFile = try bundleFile(reports[1]), releaseFile = try bundleFile(reports[2])
        let onelinePatch = try patch(of: onelineFile, from: platform.digests.sha256Hex(v1))
        let releasePatch = try patch(of: releaseFile, from: platform.digests.sha256Hex(v1))
        let v2ManifestPath = repository.appendingPathComponent(reports[1].manifestPath)

        // Applying the release patch as the updater does: base mapped from the store's file.
        let patchData = try Data(contentsOf: repository.appendingPathComponent(PackageRepositoryLayout.blob(releasePatch.blob)))
        let apply = try measureApply(patch: patchData, base: files.appendingPathComponent("v1"), target: releaseFile,
                                     runs: options.iterations ?? 5, platform: platform)

        return BenchReport(values: [
            ("bundle_bytes", Double(v1.count)),
            ("files", Double(reports[0].manifest.files.count)),
            ("oneline_patch_bytes", Double(onelinePatch.size)),
            ("oneline_bsdiff_bytes", Double(onelineBsdiff)),
            ("oneline_full_bytes", Double(onelineFile.storedSize)),
            ("oneline_total_bytes", Double(onelineServed)),
            ("oneline_file_level_bytes", Double(oneline.fileLevelBytes)),
            ("release_patch_bytes", Double(releasePatch.size)),
            ("release_bsdiff_bytes", Double(releaseBsdiff.bytes)),
            ("release_full_bytes", Double(releaseFile.storedSize)),
            ("release_file_level_bytes", Double(released.fileLevelBytes)),
            ("release_total_bytes", Double(releaseServed)),
            ("full_app_bytes", Double(fullApp)),
            ("patch_vs_bsdiff", Double(releasePatch.size) / Double(releaseBsdiff.bytes)),
            ("oneline_patch_vs_bsdiff", Double(onelinePatch.size) / Double(onelineBsdiff)),
            ("apply_ms", apply.milliseconds),
            ("apply_peak_growth_mb", apply.peakGrowth / 1_048_576),
            ("apply_memory_ratio", apply.peakGrowth / Double(v3.count)),
            ("patch_make_ms", packMilliseconds[2]),
            ("bsdiff_ms", releaseBsdiff.milliseconds),
            ("manifest_bytes", Double(try Data(contentsOf: v2ManifestPath).count)),
            ("manifest_compressed_bytes", Double(try Data(contentsOf: v2ManifestPath.appendingPathExtension(compressor.encoding)).count)),
            ("release_touched_fraction", Double(release.touchedBytes) / Double(v1.count)),
        ])
    }

    /// The updater's count and the server's must agree, the bundle must have come by patch, and the
    /// store must now hold the new bundle's exact bytes.
    private static func check(_ report: PackageUpdater.Report, served: Int, expected: Data, store: PackageStore) throws {
        guard report.totalBytes == Int64(served) else {
            throw failure("the updater counted \(report.totalBytes) bytes, the server served \(served)")
        }
        guard let file = report.files.first(where: { $0.path == bundlePath }), file.way == .patch else {
            throw failure("the bundle did not come by patch: \(report.files.filter { $0.way != .installed })")
        }
        let package = try store.activePackage(id)
        guard let entry = package.manifest.file(at: try PackagePath(bundlePath)),
              try Data(contentsOf: package.contentsURL(of: entry)) == expected else {
            throw failure("the store does not hold the new bundle's bytes")
        }
    }

    private static func bundleFile(_ report: PackageWriter.Report) throws -> PackageFile {
        guard let file = report.manifest.files.first(where: { $0.path.value == bundlePath }) else { throw failure("no bundle in the manifest") }
        return file
    }

    private static func patch(of file: PackageFile, from base: String) throws -> PackagePatch {
        guard let patch = file.patches?.first(where: { $0.base == base }) else { throw failure("no patch from v1 for the bundle") }
        return patch
    }

    private static func runBsdiff(_ tool: String, _ directory: URL, _ old: String, _ new: String) throws -> (bytes: Int, milliseconds: Double) {
        let output = directory.appendingPathComponent("\(old)-\(new).bsdiff")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [directory.appendingPathComponent(old).path, directory.appendingPathComponent(new).path, output.path]
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        let elapsed = milliseconds(ContinuousClock.now - start)
        guard process.terminationStatus == 0 else { throw failure("bsdiff exited with \(process.terminationStatus)") }
        return (try Data(contentsOf: output).count, elapsed)
    }

    /// Median time of `runs` applications, and the peak resident growth of one.
    private static func measureApply(patch: Data, base url: URL, target: PackageFile, runs: Int,
                                     platform: PackagePlatform) throws -> (milliseconds: Double, peakGrowth: Double) {
        guard let codec = platform.delta else { throw failure("no delta codec") }
        func applyOnce() throws {
            let base = try Data(contentsOf: url, options: .alwaysMapped)
            let result = try DeltaPatch.apply(patch, to: base, baseSHA256: platform.digests.sha256Hex(base), expectedSize: target.size,
                                              expectedSHA256: target.sha256, codec: codec, digests: platform.digests)
            guard result.count == target.size else { throw failure("apply gave \(result.count) bytes") }
        }
        try applyOnce()   // warm: page cache and code
        var times: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            try applyOnce()
            times.append(milliseconds(ContinuousClock.now - start))
        }
        ProcessMemory.releaseFreed()   // what earlier runs freed must not hide this run's growth
        guard ProcessMemory.resetPeak(), let before = ProcessMemory.kilobytes("VmRSS") else { return (benchMedian(times), -1) }
        try applyOnce()
        guard let peak = ProcessMemory.kilobytes("VmHWM") else { return (benchMedian(times), -1) }
        return (benchMedian(times), Double(max(0, peak - before)) * 1024)
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    private static func failure(_ message: String) -> HybridError {
        HybridError.engine(.native(domain: "bench update", code: 1, message: message))
    }
}

/// This process's memory as Linux reports it in `/proc/self/status`.
enum ProcessMemory {
    /// Resets the peak resident size (VmHWM) to the current one (Linux 4.0+: `5` to `clear_refs`).
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    /// Hands memory glibc keeps after `free` back to the system (`malloc_trim(0)`, looked up at run
    /// time: the Glibc module does not export it). glibc serves a freed multi-megabyte block again
    /// from its heap, so without this a second apply would seem to need nothing.
    static func releaseFreed() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }

    /// A `Vm…` line of `/proc/self/status`, in kilobytes.
    static func kilobytes(_ key: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int(line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return nil
    }
}
#endif
