#if os(Linux)
import Foundation
import HybridCommandLine
import HybridCore

/// The tour, one feature per step: each opens its page, waits for the page's report, and adds
/// what the app saw natively (the jar, the proxy's records, the pool, progress, the updater).
extension DemoTour {
    /// Walks every step, then shows the home page with the results and takes its screenshot.
    func walk() async throws -> String? {
        let coldMs = try await start()
        await page("bridge", "Bridge: progress, cancel, errors")
        await page("events", "Events from native")
        await page("device-storage", "Device and storage modules")
        await cookies()
        await upload()
        await page("interception", "URL interception")
        await page("payment", "Payment-scheme hand-off")
        await page("recovery", "White-screen recovery", timeout: 30)
        try await pooledReopen(coldMs: coldMs)
        await prerenderedOpen(coldMs: coldMs)
        await progress()
        await dialogs()
        await page("back", "Back and resume")
        await page("snapshot", "Canvas snapshot (onSnapshot)")
        await update()
        return try await home()
    }

    /// A step whose page's own check is the whole result.
    func page(_ feature: String, _ title: String, timeout: Double = 20) async {
        record(feature, title, await visit(feature, timeout: timeout))
    }

    func cookies() async {
        let local = origin.url("/", host: "localhost")
        _ = try? jar.setCookie(fromHeader: "demo_native=jar-127; Path=/", for: origin.url("/"))
        _ = try? jar.setCookie(fromHeader: "demo_native=jar-localhost; Path=/", for: local)
        let report = await visit("cookies")
        // Engine → jar: the Set-Cookie and document.cookie of the localhost page reach the app's jar.
        var names: Set<String> = []
        for _ in 0..<100 {
            names = Set(jar.cookies(for: local).map(\.name))
            if names.isSuperset(of: ["demo_server", "demo_page"]) { break }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        let back = names.isSuperset(of: ["demo_server", "demo_page"])
        record("cookies", "Cookies both ways (302 across hosts)", report, ok: back,
               figure: back ? "jar → page across 302 127.0.0.1 → localhost; Set-Cookie + document.cookie → jar"
                            : "the page's cookies did not reach the jar (jar has \(names.sorted()))",
               details: ["jarNames": .array(names.sorted().map { .string($0) })])
    }

    func upload() async {
        let report = await visit("upload")
        let record = proxied.all.last { $0.method == "POST" && $0.url.path == "/multipart" }
        let figure = record.map { "\(report?.figure ?? "") · native proxy sent \($0.requestBodyBytes) B" }
        self.record("upload", "POST FormData file via proxy", report, ok: record != nil, figure: figure ?? "the request did not go through the proxy",
                    details: ["proxiedBodyBytes": .number(Double(record?.requestBodyBytes ?? 0)), "status": .number(Double(record?.status ?? 0))])
    }

    func pooledReopen(coldMs: Double) async throws {
        guard let pool, let old = view else { return }
        // The app closes the container; the next page opens in a warm one.
        pool.enqueue(old)
        let started = Date()
        let warm = try await pool.dequeue()
        show(warm)
        state.pooled = true
        let report = await visit("pool")
        let pooledMs = Date().timeIntervalSince(started) * 1000
        let pooledPaint = await firstContentfulPaint(since: started)
        let ok = pool.coldCount == 0 && warm !== old && pooledPaint != nil && coldFirstPaintMs != nil
        var figure = String(format: "open %.0f ms pooled vs %.0f ms cold (%.1fx)", pooledMs, coldMs, coldMs / max(pooledMs, 1))
        var details: [String: JSONValue] = ["pooledMs": .number(pooledMs.rounded()), "coldMs": .number(coldMs.rounded()),
                                            "coldViewsMade": .number(Double(pool.coldCount))]
        if let pooledPaint, let coldPaint = coldFirstPaintMs {
            figure = String(format: "tap to first paint %.0f ms pooled vs %.0f ms cold (%.1fx); ", pooledPaint, coldPaint,
                            coldPaint / max(pooledPaint, 1)) + figure
            details["pooledFirstPaintMs"] = .number(pooledPaint.rounded())
            details["coldFirstPaintMs"] = .number(coldPaint.rounded())
        } else {
            figure = "no first contentful paint reported; " + figure
        }
        record("pool", "Pooled reopen", report, ok: ok, figure: figure, details: details)
    }

    /// The next page prerendered in a view of its own while this one is shown, then opened: the
    /// tap shows it at once (no load), and the page saw `document.prerendering` until then.
    func prerenderedOpen(coldMs: Double) async {
        let title = "Prerendered open"
        guard let pool, let old = view else { return }
        let url = DemoPublisher.url("pages/prerender.html")
        _ = await report("prerender", timeout: 0)   // none left from an earlier step
        do {
            let hidden = try await pool.prerender(url)
            // What the user still looks at is the last page; the tap comes once the hidden one has loaded.
            for _ in 0..<200 where hidden.state.url != url || hidden.state.isLoading {
                try? await Task.sleep(nanoseconds: 25_000_000)
            }
            let started = Date()
            let shown = try await pool.open(url)
            let openMs = Date().timeIntervalSince(started) * 1000
            pool.enqueue(old)
            show(shown)
            let report = await report("prerender")
            // The page reports once it saw itself shown (`prerenderingchange` after loading hidden).
            let ok = pool.prerenderActivations == 1 && shown !== old
            record("prerender", title, report, ok: ok,
                   figure: String(format: "open %.0f ms prerendered vs %.0f ms cold open (%.0fx); no load on the tap", openMs,
                                  coldMs, coldMs / max(openMs, 1)),
                   details: ["openMs": .number(openMs.rounded()), "coldMs": .number(coldMs.rounded()),
                             "activations": .number(Double(pool.prerenderActivations))])
        } catch {
            FileHandle.standardError.write(Data("demo: prerendered open failed: \(error)\n".utf8))
            record("prerender", title, nil, ok: false, figure: "\(error)")
        }
    }

    /// Milliseconds from `opened` (the app asking for the page) to the shown page's first
    /// contentful paint — the paint entry's time on the page's clock, as `hybrid bench
    /// firstscreen` measures it — or `nil` when the engine reports none within 5 s.
    func firstContentfulPaint(since opened: Date) async -> Double? {
        guard let view else { return nil }
        let paint = try? await view.engine.callAsync("""
            return await new Promise((resolve) => {
              const done = (entry) => resolve(entry ? performance.timeOrigin + entry.startTime : 0);
              new PerformanceObserver((list) => {
                const entry = list.getEntriesByName('first-contentful-paint')[0];
                if (entry) done(entry);
              }).observe({ type: 'paint', buffered: true });
              setTimeout(() => done(null), 5000);
            });
            """)
        guard let epoch = paint?.numberValue, epoch > 0 else { return nil }
        return epoch - opened.timeIntervalSince1970 * 1000
    }

    func progress() async {
        // A page reports before its load ends; a load started meanwhile would continue that
        // navigation's bar (as the model intends), so start from a finished one.
        for _ in 0..<100 where view?.state.progress.isComplete == false {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        var samples: [LoadProgress] = []
        let token = view?.observe { state in samples.append(state.progress) }
        let report = await visit("progress", url: origin.url("/demo/progress"))
        // The page reports from its load event; the bar completes when the engine's load ends.
        for _ in 0..<100 where samples.last?.isComplete != true {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        token?.cancel()
        let navigation = samples.last?.navigation ?? 0
        let load = samples.filter { $0.navigation == navigation }.map(\.fraction)
        let monotonic = zip(load, load.dropFirst()).allSatisfy { $0 <= $1 }
        let ok = load.count >= 3 && monotonic && samples.last?.isComplete == true
        let figure = String(format: "%d updates, %.2f → %.2f, never backwards", load.count, load.first ?? 0, load.last ?? 0)
        record("progress", "Progress", report, ok: ok, figure: ok ? figure : "progress \(samples)",
               details: ["updates": .number(Double(load.count)), "monotonic": .bool(monotonic),
                         "first": .number(load.first ?? 0), "last": .number(load.last ?? 0),
                         "samples": .array(load.map { .number(($0 * 1000).rounded() / 1000) })])
    }

    func dialogs() async {
        dialogs.removeAll()
        let report = await visit("dialogs")
        let seen = dialogs
        record("dialogs", "Dialogs (alert, confirm, prompt)", report, ok: seen == ["alert", "confirm", "prompt"],
               details: ["answeredByApp": .array(seen.map { .string($0) })])
    }

    func update() async {
        let title = "Offline package update v1 → v2"
        let first = await visit("update")
        guard first?.details?["version"] == 1 else {
            record("update", title, first, ok: false, figure: "v1 did not show: \(first?.figure ?? "no report")")
            return
        }
        do {
            try publisher.packVersion2()
            let report = try await publisher.update()
            view?.reload()
            let second = await self.report("update")
            let files = publisher.packs.last?.manifest.files.count ?? 0
            let v2 = second?.details?["version"] == 2
            let incremental = report.blobsFetched >= 1 && report.blobsFetched < files
            let install = publisher.installs.first
            record("update", title, second, ok: v2 && incremental,
                   figure: "v1 → v2: fetched \(report.blobsFetched) of \(files) files (\(TerminalProgress.bytes(report.bytesFetched))), page shows v\(v2 ? 2 : 1)",
                   details: ["v2BlobsFetched": .number(Double(report.blobsFetched)), "v2BlobsReused": .number(Double(report.blobsReused)),
                             "v2BytesFetched": .number(Double(report.bytesFetched)), "files": .number(Double(files)),
                             "v1BlobsFetched": .number(Double(install?.blobsFetched ?? 0)), "v1BytesFetched": .number(Double(install?.bytesFetched ?? 0)),
                             "activeVersion": .number(Double(publisher.store.activeVersion(DemoPublisher.packageID) ?? 0))])
        } catch {
            record("update", title, first, ok: false, figure: "update failed: \(error)")
        }
    }

    /// The home page with every result, and its screenshot.
    func home() async throws -> String? {
        guard let view, await visit("home", url: DemoPublisher.url("index.html")) != nil else { return nil }
        try? await Task.sleep(nanoseconds: 300_000_000)  // the table's first paint
        let png = try await view.snapshot()
        let path = out.appendingPathComponent("screenshot.png")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try png.write(to: path)
        return path.path
    }
}
#endif
