#if os(Linux)
import Foundation
import Glibc
import HybridCore
import HybridCrypto
import HybridServer

/// `hybrid bench rollout`: N installs update v1 → v2 at once through a Varnish edge in front of
/// `hybrid serve`'s repository server, then a halt sends them back; what the origin saw.
enum RolloutBenchSuite: BenchSuite {
    static let name = "rollout"
    static let usesEngine = false
    static let keys = """
        A 61-file app (the 60-file page of `bench offline` plus a 512 KB bundle) packed as v1, and v2 (3
        files changed, a one-line edit of the bundle: patches) staged and rolled out to 100 %. varnishd
        (Debian's, its own process, loopback, its own -n work directory, deploy/varnish/hybrid-repo.vcl)
        caches in front of the origin, `hybrid serve`'s StaticSiteServer. N installs (HYBRID_BENCH_INSTALLS,
        default 2000; each a real PackageStore seeded with v1 and the real PackageUpdater with its own
        install id), 64 at a time, update through the edge at once; then `rollout halt`, a PURGE of the
        rollout document, and every install updates again. An install fails when its update throws, when
        it is not on v2 after the update (files re-hashed by PackageIntegrity), or not back on v1 with v2
        blocked and no file fetched after the halt (the first failures go to standard error);
        scripts/cdn-tests.sh fails on failed_installs > 0 or max_origin_fetches_per_object > 1.
        installs                  N
        failed_installs           installs whose update threw or ended elsewhere than it must (must be 0)
        origin_requests           requests the origin answered during the update (bodies and 304s)
        origin_bytes              body bytes the origin sent during the update
        origin_revalidations      of those, 304s (pointer revalidations)
        max_origin_fetches_per_object   the most times the origin sent one immutable object's body (≤ 1)
        edge_requests             requests the edge answered during the update (varnishstat MAIN.client_req)
        edge_hit_ratio            the share of them the edge answered without asking the origin:
                                  1 - origin_requests / edge_requests
        edge_cache_hit_share      varnishstat's own MAIN.cache_hit / MAIN.client_req (requests that waited for
                                  a fetch another request started are not cache hits there, but cost the origin nothing)
        update_bytes_per_install  bytes one install fetched (its updater's own report, median)
        p50_update_ms, p99_update_ms   one install's update, start to activation, through the edge
        halt_returned             installs back on v1 after the halt without a download
        halt_origin_requests      requests the origin answered during the halt round
        """

    static let id = "bench-rollout"
    static let origin = "https://m.bench.hybridkit.invalid/rollout/"
    static let concurrency = 64

    @MainActor static func run(_ options: BenchOptions) async throws -> BenchReport {
        let installs = Int(ProcessInfo.processInfo.environment["HYBRID_BENCH_INSTALLS"] ?? "") ?? 2000
        guard installs > 0 else { throw failure("HYBRID_BENCH_INSTALLS must be above 0") }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hk-bench-rollout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let platform = PackagePlatform.native

        // Publish v1; the origin is what `hybrid serve` runs, its access log counted.
        let signer = try Ed25519Signer.generate()
        let verifier = try Ed25519Verifier(publicKey: signer.publicKey)
        let repository = root.appendingPathComponent("repo")
        let writer = PackageWriter(repository: repository, platform: platform, signer: signer)
        let bundle = BenchBundle(bytes: 512 << 10)
        func publish(_ version: Int, bundle: Data, staged: Bool) throws {
            var site = BenchOfflinePage.files(version: version)
            site["js/bundle.js"] = bundle
            let directory = root.appendingPathComponent("site-\(version)")
            try BenchOfflinePage.write(site, to: directory)
            var options = PackageWriter.Options(id: id, version: version, origin: origin)
            options.holdsPointer = staged
            _ = try writer.pack(directory, options: options)
        }
        try publish(1, bundle: bundle.data, staged: false)
        let originLog = OriginLog()
        let server = try StaticSiteServer(root: repository, accessLog: { @Sendable line in originLog.record(line) })
        defer { server.stop() }

        // Every install starts on v1 (one installed from the origin, the others copies of its store).
        @Sendable func installer(_ index: Int) -> PackageInstaller {
            let store = PackageStore(.init(root: root.appendingPathComponent("installs/\(index)"), lockTimeout: 60, gcGracePeriod: 0))
            return PackageInstaller(store: store, platform: platform, verifier: verifier)
        }
        _ = try await PackageUpdater(repository: server.url, installer: installer(0)).update(id)
        for index in 1..<installs {
            try FileManager.default.copyItem(at: installer(0).store.root, to: installer(index).store.root)
        }

        try publish(2, bundle: bundle.oneLineEdit().data, staged: true)
        let publisher = PackageRolloutPublisher(writer: writer)
        try publisher.start(id: id, candidate: 2, stages: [100])

        let edge = try VarnishEdge(origin: server.server.port, directory: root.appendingPathComponent("varnish"))
        defer { edge.stop() }
        @Sendable func updater(_ index: Int) -> PackageUpdater {
            PackageUpdater(repository: edge.url, installer: installer(index), installID: "install-\(index)")
        }

        // The rollout: everyone at once, through the edge.
        originLog.reset()
        let edgeBefore = try edge.counters()
        let updates = await runAll(installs) { index in
            let report = try await updater(index).update(id)
            let installer = installer(index)
            let integrity = try await PackageIntegrity(installer: installer).checkAtLaunch(id)
            guard installer.store.activeVersion(id) == 2, integrity.damaged.isEmpty, integrity.depth == .full else {
                throw failure("install \(index) is on \(installer.store.activeVersion(id) ?? 0), damaged \(integrity.damaged)")
            }
            return Double(report.totalBytes)
        }
        let edgeAfter = try edge.counters()
        let served = originLog.snapshot()

        // The halt: published, purged from the edge, and every install goes back on its next update.
        try publisher.halt(id: id, reason: "bench: halted")
        for path in ["packages/\(id)/rollout.json", "packages/\(id)/rollout.json.sig", "packages/\(id)/latest.json",
                     "packages/\(id)/latest.json.sig"] {
            try edge.purge(path)
        }
        originLog.reset()
        let halts = await runAll(installs) { index in
            let report = try await updater(index).update(id)
            let store = installer(index).store
            // Back without a download: nothing but the pointer and the rollout document fetched.
            guard store.activeVersion(id) == 1, store.state(id).rejected.contains(2), report.rollout?.returnedToKept == true,
                  report.bytesFetched == 0
            else { throw failure("install \(index) after the halt: on \(store.activeVersion(id) ?? 0), rejected \(store.state(id).rejected)") }
            return 1
        }
        let halted = originLog.snapshot()

        let failures = (updates.failures + halts.failures)
        for message in failures.prefix(5) { FileHandle.standardError.write(Data("bench rollout: \(message)\n".utf8)) }
        let edgeRequests = edgeAfter.requests - edgeBefore.requests
        let times = updates.milliseconds.sorted()
        return BenchReport(values: [
            ("installs", Double(installs)),
            ("failed_installs", Double(Set(failures.map(\.index)).count)),
            ("origin_requests", Double(served.requests)),
            ("origin_bytes", Double(served.bytes)),
            ("origin_revalidations", Double(served.notModified)),
            ("max_origin_fetches_per_object", Double(served.maxImmutableFetches)),
            ("edge_requests", Double(edgeRequests)),
            ("edge_hit_ratio", edgeRequests > 0 ? 1 - Double(served.requests) / Double(edgeRequests) : 0),
            ("edge_cache_hit_share", edgeRequests > 0 ? Double(edgeAfter.hits - edgeBefore.hits) / Double(edgeRequests) : 0),
            ("update_bytes_per_install", benchMedian(updates.values)),
            ("p50_update_ms", percentile(times, 0.50)),
            ("p99_update_ms", percentile(times, 0.99)),
            ("halt_returned", Double(halts.values.count)),
            ("halt_origin_requests", Double(halted.requests)),
        ])
    }

    /// One install's failure.
    struct Failure: Sendable { let index: Int; let message: String }

    /// Each install's value and update time, and the failures.
    struct Outcome: Sendable {
        var values: [Double] = []
        var milliseconds: [Double] = []
        var failures: [Failure] = []
    }

    /// Runs `body` for installs 0..<count, `concurrency` at a time.
    static func runAll(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> Double) async -> Outcome {
        await withTaskGroup(of: (Int, Result<Double, any Error>, Double).self) { group in
            var outcome = Outcome()
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask {
                    let start = ContinuousClock.now
                    let result: Result<Double, any Error>
                    do { result = .success(try await body(index)) } catch { result = .failure(error) }
                    return (index, result, milliseconds(ContinuousClock.now - start))
                }
            }
            while next < min(count, concurrency) { add() }
            for await (index, result, elapsed) in group {
                switch result {
                case .success(let value):
                    outcome.values.append(value)
                    outcome.milliseconds.append(elapsed)
                case .failure(let error):
                    outcome.failures.append(Failure(index: index, message: "install \(index): \(error)"))
                }
                if next < count { add() }
            }
            return outcome
        }
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    static func failure(_ message: String) -> any Error { HybridError.network(.serverStartFailed(message)) }
    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}

/// What the origin answered, from `hybrid serve`'s access-log lines (`… "GET /path" STATUS BYTES`).
final class OriginLog: Sendable {
    struct Snapshot {
        var requests = 0
        var bytes = 0
        var notModified = 0
        var maxImmutableFetches = 0
    }
    private let lines = LockedState<[String]>([])

    func record(_ line: String) { lines.withLock { $0.append(line) } }
    func reset() { lines.withLock { $0.removeAll() } }

    func snapshot() -> Snapshot {
        var snapshot = Snapshot()
        var fetches: [String: Int] = [:]
        for line in lines.withLock({ $0 }) {
            let fields = line.split(separator: " ")
            guard fields.count >= 4, let bytes = Int(fields[fields.count - 1]), let status = Int(fields[fields.count - 2]),
                  let quote = line.firstIndex(of: "\"") else { continue }
            let request = line[line.index(after: quote)...].split(separator: "\"").first?.split(separator: " ") ?? []
            let path = request.count > 1 ? String(request[1]) : ""
            snapshot.requests += 1
            snapshot.bytes += bytes
            if status == 304 { snapshot.notModified += 1 }
            if status == 200, RepositoryCaching.lifetime(ofPath: path) == .immutable { fetches[path, default: 0] += 1 }
        }
        snapshot.maxImmutableFetches = fetches.values.max() ?? 0
        return snapshot
    }
}

/// varnishd in its own process on a loopback port, with its own work directory, in front of `origin`:
/// deploy/varnish/hybrid-repo.vcl with the backend's port replaced. Unprivileged: as root its jail
/// runs it as Debian's `vcache` user; otherwise as the caller.
final class VarnishEdge: Sendable {
    let url: URL
    private let directory: URL
    private let pid: pid_t

    static let varnishd = "/usr/sbin/varnishd"
    static var template: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../deploy/varnish/hybrid-repo.vcl").standardized
    }

    init(origin port: Int, directory: URL) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.varnishd) else {
            throw RolloutBenchSuite.failure("bench rollout needs varnishd (apt-get install varnish; scripts/bootstrap.sh does)")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let vcl = try String(contentsOf: Self.template, encoding: .utf8)
            .replacingOccurrences(of: ".port = \"8080\";", with: ".port = \"\(port)\";")
        let vclFile = directory.appendingPathComponent("edge.vcl")
        try vcl.write(to: vclFile, atomically: true, encoding: .utf8)
        // A work directory varnishd makes itself (as root it chowns it to the jail's user).
        let work = directory.appendingPathComponent("work")
        self.directory = work
        pid = try Subprocess.spawn(Self.varnishd, [
            "-F", "-n", work.path, "-a", "127.0.0.1:0", "-f", vclFile.path, "-s", "malloc,256m",
            "-j", getuid() == 0 ? "unix,user=vcache" : "none", "-p", "thread_pool_min=50",
        ], output: nil)
        // Its port, once the child listens.
        var address: URL?
        for _ in 0..<200 where address == nil {
            if let output = try? Subprocess.output("/usr/bin/varnishadm", ["-n", work.path, "debug.listen_address"]),
               let line = output.split(separator: "\n").first(where: { $0.hasPrefix("a0 ") }),
               let port = line.split(separator: " ").last.flatMap({ Int($0) }) {
                address = URL(string: "http://127.0.0.1:\(port)/")
            } else {
                usleep(100_000)
            }
        }
        guard let address else {
            kill(pid, SIGTERM)
            _ = Subprocess.wait(pid)
            throw RolloutBenchSuite.failure("varnishd did not start listening within 20 s")
        }
        url = address
    }

    /// `MAIN.client_req` and `MAIN.cache_hit`.
    func counters() throws -> (requests: Int, hits: Int) {
        let output = try Subprocess.output("/usr/bin/varnishstat", ["-n", directory.path, "-1", "-f", "MAIN.client_req", "-f", "MAIN.cache_hit"])
        var values: [String: Int] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let value = Int(fields[1]) { values[String(fields[0])] = value }
        }
        return (values["MAIN.client_req"] ?? 0, values["MAIN.cache_hit"] ?? 0)
    }

    /// Removes `path` from the edge's cache (the VCL allows PURGE from loopback), as a publisher does
    /// after writing a document that must reach installs before its max-age.
    func purge(_ path: String) throws {
        let target = url.appendingPathComponent(path).absoluteString
        let status = try Subprocess.output("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PURGE", target])
        guard status == "200" else { throw RolloutBenchSuite.failure("PURGE \(path) answered \(status)") }
    }

    /// Stops varnishd (its manager stops the child) and waits for it.
    func stop() {
        kill(pid, SIGTERM)
        _ = Subprocess.wait(pid)
    }
}

/// Helper processes by `posix_spawn` and `waitpid`: Foundation's `Process` leaves them unreaped
/// (and `waitUntilExit` waiting) while a long-lived child of its own runs in this GLib-driven process.
enum Subprocess {
    /// Starts `tool`; its standard output goes to `output` (a pipe's write end) or /dev/null.
    static func spawn(_ tool: String, _ arguments: [String], output: Int32?) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let output {
            posix_spawn_file_actions_adddup2(&actions, output, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, tool, &actions, nil, argv, environ)
        guard status == 0 else { throw RolloutBenchSuite.failure("\(tool) could not start: \(String(cString: strerror(status)))") }
        return pid
    }

    /// The exit status of `pid` once it ends.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return (status >> 8) & 0xff
    }

    /// Runs `tool` to its end and returns its standard output; throws when it exits non-zero.
    static func output(_ tool: String, _ arguments: [String]) throws -> String {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw RolloutBenchSuite.failure("pipe: \(errno)") }
        let pid: pid_t
        do { pid = try spawn(tool, arguments, output: fds[1]) } catch {
            close(fds[0]); close(fds[1])
            throw error
        }
        close(fds[1])
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fds[0], &buffer, buffer.count)
            if count > 0 { data.append(contentsOf: buffer[0..<count]) } else if count < 0, errno == EINTR { continue } else { break }
        }
        close(fds[0])
        let status = wait(pid)
        guard status == 0 else { throw RolloutBenchSuite.failure("\(tool) \(arguments.joined(separator: " ")) exited \(status)") }
        return String(decoding: data, as: UTF8.self)
    }
}
#endif
