#if os(Linux)
import Foundation
import HybridCore
import HybridServer
import HybridFixtures

/// `hybrid bench data`: what moving large bodies and bytes between page and app costs, side by
/// side with the engine doing the same by itself. nginx (a separate process) serves the page and
/// the files and takes the uploads, so the app process's memory holds only what HybridKit holds.
enum DataBenchSuite: BenchSuite {
    static let name = "data"
    static let keys = """
        nginx (its own process) serves the page and two 50 MB files and stores PUT uploads (WebDAV);
        the request proxy carries /sink/proxied and /files/proxied, the engine the rest. Medians of
        N rounds (a third of --iterations; default 3), each alternating between the two sides:
        upload_50mb_native_ms        the engine's own fetch PUT of a 50 MB Uint8Array
        upload_50mb_proxy_ms         the same request through the request proxy
        upload_50mb_ratio            proxy / native (goal at most 1.3)
        upload_blob_50mb_native_ms   the same PUT with a 50 MB Blob body (a file from a picker is one)
        upload_blob_50mb_proxy_ms    the same through the request proxy (its slices read from the Blob)
        upload_blob_50mb_ratio       proxy / native (report)
        upload_200mb_native_rss_growth_mb  the app process's peak RSS growth (VmHWM after resetting it
                                     through /proc/self/clear_refs, and VmRSS sampled every 5 ms) during
                                     a 200 MB upload by the engine's own fetch (the reference; -1 when it failed)
        upload_200mb_rss_growth_mb   the same during a 200 MB upload through the proxy (goal at most 64;
                                     -1 when the upload failed, the reason on standard error)
        Each pair takes turns whose order alternates, after one warm-up run of each side.
        bytes_10mb_rt_ms             a 10 MB Uint8Array sent to a module by hybrid.call and echoed back
                                     (the runtime's byte path: BridgeBytes)
        bytes_base64_10mb_rt_ms      the same bytes base64-encoded by the page and sent as a string, with
                                     the engine's own codec (Uint8Array toBase64/fromBase64, as hybrid.js)
        base64_native_codec          1 when the engine has that codec, 0 when the page fell back to a loop
        bytes_vs_base64              bytes_base64_10mb_rt_ms / bytes_10mb_rt_ms (goal at least 3 where the
                                     engine has a binary path; about 1 where bytes cross as base64 anyway)
        bytes_inline_10mb_rt_ms      bytes_10mb_rt_ms in a second view with the byte channel turned off
                                     (BridgeHost.Options.usesByteChannel): the `$bytes` base64 path
        download_50mb_native_ms      the engine's own fetch of a 50 MB file into an ArrayBuffer
        download_50mb_proxy_ms       the same through the proxy (streamed)
        download_50mb_ratio          proxy / native
        HYBRID_BENCH_DATA_ONLY=upload, uploadBlob, bytes or download measures that pair alone (to profile it).
        """

    /// Sizes in MiB.
    private static let uploadMB = 50, bigUploadMB = 200, bytesMB = 10, downloadMB = 50

    @MainActor static func run(_ options: BenchOptions) async throws -> BenchReport {
        let rounds = max((options.iterations ?? 9) / 3, 1)
        // The engine first: a Chromium started after nginx never answers on its DevTools pipe.
        let provider = try options.makeProvider()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hk-bench-data-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try makeSite(at: root)
        let nginx = try NginxProcess(root: root, gzip: false, locations: """
            location /sink/ { dav_methods PUT; client_max_body_size 0; client_body_buffer_size 1m; create_full_put_path on; }
            """)
        defer { nginx.stop() }
        let origin = "http://127.0.0.1:\(nginx.port)"
        var policy = try ProxyPolicy(requests: ["\(origin)/sink/proxied*", "\(origin)/files/proxied*"],
                                     maxBodyBytes: (bigUploadMB + 8) << 20, defaultTimeout: 600)
        policy.routing = .always
        let proxy = RequestProxy(policy: policy, jar: CookieJar())
        var configuration = HybridWebViewConfiguration()
        configuration.modules = [
            ProxyModule(proxy: proxy, allowedOrigins: [OriginPattern(origin)]),
            EchoModule(allowedOrigins: [OriginPattern(origin)]),
        ]
        // Room for the 10 MB `$bytes` echo as base64 (proxied request bodies stream in 2 MB slices).
        configuration.bridgeLimits = BridgeRouter.Limits(maxMessageBytes: (bigUploadMB * 3 / 2) << 20,
                                                         maxInFlightBytes: bigUploadMB * 3 << 20,
                                                         defaultTimeout: .seconds(600))
        if let script = ProxyModule.userScript(policy: policy) { configuration.engine.userScripts.append(script) }
        let view = try HybridWebView(provider: provider, configuration: configuration)
        defer { view.close() }
        try await view.engine.waitForLoad(timeout: BenchOptions.loadTimeout) { view.load(nginx.url("/bench.html")) }
        _ = try await view.engine.callAsync("await window.hybrid.ready; return true;")

        // The pairs, in the page's scenarios; HYBRID_BENCH_DATA_ONLY=NAME measures that one alone (to profile it).
        let scenarios: [(name: String, keys: [String], arguments: [String: Int])] = [
            ("upload", ["upload_50mb_native_ms", "upload_50mb_proxy_ms", "upload_50mb_ratio"], ["mb": uploadMB, "rounds": rounds]),
            ("uploadBlob", ["upload_blob_50mb_native_ms", "upload_blob_50mb_proxy_ms", "upload_blob_50mb_ratio"],
             ["mb": uploadMB, "rounds": rounds]),
            ("bytes", ["bytes_10mb_rt_ms", "bytes_base64_10mb_rt_ms", "bytes_vs_base64"], ["mb": bytesMB, "rounds": rounds + 2]),
            ("download", ["download_50mb_native_ms", "download_50mb_proxy_ms", "download_50mb_ratio"],
             ["mb": downloadMB, "rounds": rounds]),
        ]
        let only = ProcessInfo.processInfo.environment["HYBRID_BENCH_DATA_ONLY"]
        if let only, !scenarios.contains(where: { $0.name == only }) {
            let names = scenarios.map(\.name).joined(separator: ", ")
            throw HybridError.engine(.native(domain: "bench", code: 2, message: "HYBRID_BENCH_DATA_ONLY=\(only): one of \(names)"))
        }
        var measured: [String: [(key: String, value: Double)]] = [:]
        for scenario in scenarios where only == nil || only == scenario.name {
            let (a, b) = try await pair(view, scenario.name, scenario.arguments)
            measured[scenario.name] = [(scenario.keys[0], a), (scenario.keys[1], b), (scenario.keys[2], b / a)]
        }
        if only != nil { return BenchReport(values: scenarios.flatMap { measured[$0.name] ?? [] }) }
        let codec = try await view.engine.callAsync("return window.dataBench.nativeBase64 ? 1 : 0;").numberValue ?? -1
        let inline = try await inlineBytes(provider, configuration, nginx.url("/bench.html"), rounds: rounds + 2)
        // Last, as they may take the page down (Chromium 156's renderer dies on a 200 MB fetch body
        // here, its own or the proxy's): -1 then, the reason on standard error.
        let proxyGrowth = await bigUpload(view, proxied: true)
        if proxyGrowth < 0 {
            try await view.engine.waitForLoad(timeout: BenchOptions.loadTimeout) { view.load(nginx.url("/bench.html")) }
        }
        let nativeGrowth = await bigUpload(view, proxied: false)
        return BenchReport(values: measured["upload", default: []] + measured["uploadBlob", default: []] + [
            ("upload_200mb_native_rss_growth_mb", nativeGrowth), ("upload_200mb_rss_growth_mb", proxyGrowth),
        ] + measured["bytes", default: []] + [("bytes_inline_10mb_rt_ms", inline), ("base64_native_codec", codec)]
            + measured["download", default: []])
    }

    /// `bytes_10mb_rt_ms` in a view of its own whose bridge keeps bytes in messages as base64.
    @MainActor private static func inlineBytes(_ provider: any WebEngineProvider, _ configuration: HybridWebViewConfiguration,
                                               _ url: URL, rounds: Int) async throws -> Double {
        var configuration = configuration
        configuration.bridgeOptions.usesByteChannel = false
        let view = try HybridWebView(provider: provider, configuration: configuration)
        defer { view.close() }
        try await view.engine.waitForLoad(timeout: BenchOptions.loadTimeout) { view.load(url) }
        _ = try await view.engine.callAsync("await window.hybrid.ready; return true;")
        return try await pair(view, "bytes", ["mb": bytesMB, "rounds": rounds]).0
    }

    /// Runs one scenario of `bench-data.js` (`window.dataBench[name]`) in the page; it answers two numbers.
    @MainActor private static func pair(_ view: HybridWebView, _ name: String, _ arguments: [String: Int]) async throws -> (Double, Double) {
        if ProcessInfo.processInfo.environment["HYBRID_BENCH_VERBOSE"] != nil {
            FileHandle.standardError.write(Data("bench data: \(name) \(arguments)\n".utf8))
        }
        var args = arguments.mapValues { JSONValue.number(Double($0)) }
        args["scenario"] = .string(name)
        let result = try await view.engine.callAsync("return await window.dataBench[scenario](mb, rounds, proxied);",
                                                     arguments: args.merging(["rounds": .number(1), "proxied": .number(0)]) { mine, _ in mine })
        guard let values = result.arrayValue?.compactMap(\.numberValue), values.count == 2, values.allSatisfy({ $0 >= 0 }) else {
            throw HybridError.engine(.native(domain: "bench", code: 1, message: "\(name): unexpected result \(result.jsonText.prefix(300))"))
        }
        return (values[0], values[1])
    }

    /// The app's peak RSS growth during a 200 MB PUT (-1 when it failed, the reason on standard error).
    @MainActor private static func bigUpload(_ view: HybridWebView, proxied: Bool) async -> Double {
        do {
            return try await peakGrowth { _ = try await pair(view, "put", ["mb": bigUploadMB, "proxied": proxied ? 1 : 0]) }
        } catch {
            FileHandle.standardError.write(Data("bench data: the 200 MB upload (\(proxied ? "proxy" : "engine")) failed: \(error)\n".utf8))
            return -1
        }
    }

    /// The app process's peak resident memory growth, in MB, while `work` runs.
    @MainActor private static func peakGrowth(_ work: () async throws -> Void) async throws -> Double {
        let sampler = ResidentMemorySampler()
        let base = sampler.start()
        try await work()
        let peak = sampler.stop()
        return Double(max(peak - base, 0)) / 1024
    }

    /// The page, its scenarios, the files to download, the directory uploads land in.
    private static func makeSite(at root: URL) throws {
        let fm = FileManager.default
        try fm.createDirectory(at: root.appendingPathComponent("files"), withIntermediateDirectories: true)
        try fm.createDirectory(at: root.appendingPathComponent("sink"), withIntermediateDirectories: true)
        var file = Data(count: downloadMB << 20)
        file.withUnsafeMutableBytes { raw in
            for index in stride(from: 0, to: raw.count, by: 4096) { raw[index] = UInt8(truncatingIfNeeded: index / 4096) }
        }
        try file.write(to: root.appendingPathComponent("files/native.bin"))
        try file.write(to: root.appendingPathComponent("files/proxied.bin"))
        try Data(page.utf8).write(to: root.appendingPathComponent("bench.html"))
    }

    /// The page: scenarios answering `[native or bytes ms, proxied or base64 ms]`.
    private static let page = """
        <!doctype html><meta charset=utf-8><title>data bench</title>
        <script>
        const filled = (mb) => { const u = new Uint8Array(mb << 20); for (let i = 0; i < u.length; i += 4096) u[i] = i % 251; return u; };
        const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
        const timed = async (run) => { const start = performance.now(); await run(); return performance.now() - start; };
        const put = async (url, body) => {
          const response = await fetch(url, { method: 'PUT', body });
          if (response.status >= 300) throw new Error(url + ': ' + response.status);
        };
        const get = async (url, mb) => {
          const bytes = await (await fetch(url)).arrayBuffer();
          if (bytes.byteLength !== mb << 20) throw new Error(url + ': ' + bytes.byteLength + ' bytes');
        };
        // The codec a page author would use: the engine's own (Uint8Array.prototype.toBase64 and
        // Uint8Array.fromBase64, what hybrid.js uses too); a loop only where the engine lacks it.
        const nativeBase64 = typeof Uint8Array.prototype.toBase64 === 'function' && typeof Uint8Array.fromBase64 === 'function';
        const toBase64 = nativeBase64 ? (u8) => u8.toBase64()
          : (u8) => { let s = ''; for (let i = 0; i < u8.length; i += 0x8000) s += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000)); return btoa(s); };
        const fromBase64 = nativeBase64 ? (text) => Uint8Array.fromBase64(text)
          : (text) => { const s = atob(text); const u = new Uint8Array(s.length); for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i); return u; };
        // Two sides, each run once to warm up, then in turns whose order alternates (a, b, then
        // b, a: neither side always runs on what the other left); the medians.
        const turns = async (rounds, runA, runB) => {
          const a = [], b = [];
          await runA(); await runB();
          for (let i = 0; i < rounds; i++) {
            if (i % 2 === 0) { a.push(await timed(runA)); b.push(await timed(runB)); }
            else { b.push(await timed(runB)); a.push(await timed(runA)); }
          }
          return [median(a), median(b)];
        };
        // The same request by the engine (`native`) and through the proxy (`proxied`).
        const sides = (rounds, run) => turns(rounds, () => run('native'), () => run('proxied'));
        const uploads = (body, rounds) => sides(rounds, (side) => put(`/sink/${side}.bin`, body));
        window.dataBench = {
          nativeBase64,
          upload: (mb, rounds) => uploads(filled(mb), rounds),
          uploadBlob: (mb, rounds) => uploads(new Blob([filled(mb)], { type: 'application/octet-stream' }), rounds),
          async put(mb, rounds, proxied) {
            const ms = await timed(() => put(proxied ? '/sink/proxied.bin' : '/sink/native.bin', filled(mb)));
            return [ms, ms];
          },
          async bytes(mb, rounds) {
            const bytes = filled(mb);
            const check = (u8) => { if (u8.length !== bytes.length || u8[4096] !== bytes[4096]) throw new Error('echo differs'); };
            const [a, b] = await turns(rounds, async () => check((await hybrid.call('databench', 'echo', { bytes })).bytes),
                                       async () => check(fromBase64(await hybrid.call('databench', 'echoText', toBase64(bytes)))));
            return [a, b];
          },
          download: (mb, rounds) => sides(rounds, (side) => get(`/files/${side}.bin`, mb)),
        };
        </script><p>data bench</p>
        """

    /// `databench.echo` (bytes in, the same bytes out) and `echoText` (a string, the same string).
    private struct EchoModule: BridgeModule {
        struct Payload: Codable, Sendable { var bytes: BridgeBytes }
        let name = "databench"
        let allowedOrigins: [OriginPattern]
        var actions: [BridgeAction] {
            [
                Action("echo") { (payload: Payload, _) in payload },
                Action("echoText") { (text: String, _) in text },
            ]
        }
    }
}

/// The process's resident memory in kB (`/proc/self/status`): the peak since ``start()`` from
/// `VmHWM` after resetting it (`/proc/self/clear_refs`), and from `VmRSS` sampled every 5 ms in
/// case the kernel refuses the reset.
final class ResidentMemorySampler: @unchecked Sendable {
    private let lock = NSLock()
    private var peak = 0
    private var timer: (any DispatchSourceTimer)?

    /// Resets the peak, starts sampling; returns the current resident size.
    func start() -> Int {
        if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
            try? handle.write(contentsOf: Data("5".utf8))
            try? handle.close()
        }
        let now = Self.read("VmRSS")
        lock.withLock { peak = now }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now(), repeating: .milliseconds(5))
        timer.setEventHandler { [weak self] in
            let rss = Self.read("VmRSS")
            self?.lock.withLock { self?.peak = max(self?.peak ?? 0, rss) }
        }
        timer.resume()
        self.timer = timer
        return now
    }

    /// Stops sampling; returns the peak resident size since ``start()``.
    func stop() -> Int {
        timer?.cancel()
        timer = nil
        let hwm = Self.read("VmHWM")
        return lock.withLock { max(peak, hwm) }
    }

    /// A `kB` field of `/proc/self/status`.
    static func read(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
        }
        return 0
    }
}
#endif
