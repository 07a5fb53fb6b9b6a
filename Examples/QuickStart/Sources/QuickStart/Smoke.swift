import Foundation
import HybridCore
import HybridCrypto
import HybridServer

/// The smoke test: what a publisher does (`hybrid keygen`, `hybrid pack`, `hybrid config sign`,
/// `hybrid serve`), done with the products' public API in a fresh directory, then the quick
/// start run against it. The shop's page (``Smoke/page``) checks what the quick start promises
/// and reports to the `smoke` module, which only the smoke test adds to the container.
struct Smoke {
    /// Leave the work directory (keys, repository, the app's data) for a look afterwards.
    var keep: Bool

    let work = FileManager.default.temporaryDirectory
        .appendingPathComponent("quickstart-smoke-\(UUID().uuidString.prefix(8))", isDirectory: true)

    /// Publishes, runs the app until the page reports, and prints each check. `true` when all pass.
    func run() throws -> Bool {
        defer { if keep { log("kept \(work.path)") } else { try? FileManager.default.removeItem(at: work) } }
        let repository = work.appendingPathComponent("repo", isDirectory: true)
        let signer = try Ed25519KeyFiles.generate(into: work.appendingPathComponent("keys", isDirectory: true))
        try publishPackage(into: repository, signer: signer)
        try publishConfig(into: repository, signer: signer)
        let server = try StaticSiteServer(root: repository)
        defer { server.stop() }
        log("serving \(repository.path) at \(server.url)")

        let app = work.appendingPathComponent("app", isDirectory: true)
        let report = try runShop(repository: server.url, publicKey: work.appendingPathComponent("keys/public"), data: app) { view in
            // What the page cannot see: the update and the remote-config decision, installed on the
            // container. Without them the page cannot load from the package: fail now, not at the timeout.
            let container = Self.containerChecks(view, store: PackageStore(root: app.appendingPathComponent("packages")))
            guard container.allSatisfy(\.ok) else { return SmokeModule.Report(ok: false, checks: container) }
            let (reports, reported) = AsyncStream.makeStream(of: SmokeModule.Report.self)
            let (picks, picked) = AsyncStream.makeStream(of: SmokeModule.Picked.self)
            view.bridge.router.register(SmokeModule(onDone: { reported.yield($0) }, onPicked: { picked.yield($0) }))
            view.bridge.router.register(OrderExportModule())
            var page = SmokeModule.Report(ok: false, checks: [.init(name: "the page reported", ok: false, detail: "")])
            for await report in reports {
                page = report
                break
            }
            let data = await Self.dataChecks(view, picks: picks, work: work)
            let health = await Self.healthChecks(app.appendingPathComponent("health.jsonl"))
            return SmokeModule.Report(ok: page.ok, checks: page.checks + container + data + health)
        }
        for check in report.checks {
            log("\(check.ok ? "ok    " : "FAILED") \(check.name)\(check.detail.isEmpty ? "" : ": \(check.detail)")")
        }
        let passed = report.ok && !report.checks.isEmpty && report.checks.allSatisfy(\.ok)
        log(passed ? "passed (\(report.checks.count) checks)" : "FAILED")
        return passed
    }

    /// What the quick start's health recorder wrote: the update, the shop page's launch from the
    /// pooled package, its ready mark and its first contentful paint (which the page reports once
    /// painted: waited for, up to 10 s).
    @MainActor
    static func healthChecks(_ file: URL) async -> [SmokeModule.Check] {
        var events: [HealthEvent] = []
        for _ in 0..<200 {
            events = (try? HealthLogFile.read(file).events) ?? []
            if events.contains(where: { if case .pageTiming(let timing) = $0.kind { timing.firstContentfulPaint != nil } else { false } }) {
                break
            }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        let update = events.first { if case .update = $0.kind { true } else { false } }
        let launch = events.lazy.compactMap { event -> (HealthEvent, String)? in
            if case .launch(let source) = event.kind { (event, source.rawValue) } else { nil }
        }.first
        let fcp = events.lazy.compactMap { if case .pageTiming(let timing) = $0.kind { timing.firstContentfulPaint } else { nil } }.first
        let ready = events.contains { if case .ready = $0.kind { true } else { false } }
        return [
            .init(name: "health recorded the update", ok: update?.context.packageVersion == 1,
                  detail: update.map { "\($0.name) shop v\($0.context.packageVersion ?? 0)" } ?? "no update event"),
            .init(name: "health recorded the launch", ok: launch?.0.context.packageID == "shop",
                  detail: launch.map { "shop page from the \($0.1)" } ?? "no launch event"),
            .init(name: "health recorded first contentful paint", ok: fcp != nil, detail: fcp.map { "\($0) ms" } ?? "none"),
            .init(name: "health recorded app.ready", ok: ready, detail: ready ? "ready" : "no ready event"),
        ]
    }

    /// The package's update (in the app's `store`) and the config's decision, as the quick start
    /// installed them on `view`.
    @MainActor
    static func containerChecks(_ view: HybridWebView, store: PackageStore) -> [SmokeModule.Check] {
        let package = view.configuration.package
        let installed = store.activeVersion("shop")
        return [
            .init(name: "updater installed the package", ok: installed == 1,
                  detail: installed.map { "shop v\($0)" } ?? "nothing installed"),
            .init(name: "remote config chose the package", ok: package?.id == "shop", detail: "package \(package?.id ?? "none")"),
            .init(name: "remote config turned cookie sync on", ok: view.configuration.cookieSync != nil,
                  detail: view.configuration.cookieSync == nil ? "no cookie sync" : "synced with the app's jar"),
            .init(name: "engine", ok: view.engineName == "webkit", detail: view.engineName),
        ]
    }

    /// `hybrid pack site --id shop --version 1 --origin https://m.example.com/shop/`.
    private func publishPackage(into repository: URL, signer: Ed25519Signer) throws {
        let site = work.appendingPathComponent("site", isDirectory: true)
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        for (name, text) in Self.page { try Data(text.utf8).write(to: site.appendingPathComponent(name)) }
        let writer = PackageWriter(repository: repository, platform: .native, signer: signer)
        let report = try writer.pack(site, options: .init(id: "shop", version: 1, origin: "https://m.example.com/shop/",
                                                          lifetime: 86_400))
        log("packed shop v\(report.manifest.version): \(report.manifest.files.count) files")
    }

    /// `hybrid config sign config.json --repo repo`: the shop's pages get the package and cookie sync.
    private func publishConfig(into repository: URL, signer: Ed25519Signer) throws {
        let now = Date()
        let config = RemoteConfig(
            version: 1, created: now, expires: now.addingTimeInterval(86_400),
            engines: ["webkit": EngineProfile(kind: "webkit")],
            rules: [
                ConfigRule(id: "shop", match: try ConfigURLPattern("app://m.example.com/shop/*"),
                           features: FeatureSet(offlinePackage: "shop", cookieSync: true, engine: "webkit")),
                ConfigRule(id: "default", match: try ConfigURLPattern("*"), features: FeatureSet()),
            ])
        try config.validate()
        let document = try config.encoded()
        let target = repository.appendingPathComponent(ConfigRepositoryLayout.document)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try document.write(to: target)
        try DetachedSignature.fileData(try signer.sign(document))
            .write(to: repository.appendingPathComponent(ConfigRepositoryLayout.signature))
        log("signed config v\(config.version): \(config.rules.count) rules")
    }

    private func log(_ text: String) {
        FileHandle.standardError.write(Data("quickstart smoke: \(text)\n".utf8))
    }

    /// The shop's H5 site: a page and a script that only the package has.
    static let page: [String: String] = [
        "index.html": """
            <!doctype html>
            <meta charset="utf-8">
            <title>Shop</title>
            <p>Shop</p>
            <input id="attach" type="file" accept="image/*,.bin,.txt">
            <script src="shop.js"></script>
            <script src="smoke.js"></script>

            """,
        "shop.js": "window.SHOP_PACKAGE_VERSION = 1;\n",
        "smoke.js": """
            // Checks what the quick start promises, then reports to the smoke test's `smoke` module.
            const checks = [];
            const check = (name, ok, detail) => checks.push({ name, ok: ok === true, detail: String(detail ?? '') });
            const code = (promise) => promise.then(() => 'accepted', (error) => error.code);
            hybrid.ready.then(async () => {
              try {
                check('served from the offline package',
                      location.href === 'app://m.example.com/shop/' && window.SHOP_PACKAGE_VERSION === 1, location.href);
                const info = await hybrid.call('device', 'info');
                check('device.info', info.platform === 'linux' && info.appName === 'Shop', `${info.platform}, ${info.appName} ${info.appVersion}`);
                check('confirm() answered by the delegate', confirm('Place the order?'), '');
                const receipt = await hybrid.call('orders', 'place', { sku: 'tea', quantity: 2 });
                check('orders.place', receipt.sku === 'tea' && receipt.quantity === 2 && receipt.number.length > 0, JSON.stringify(receipt));
                const empty = await code(hybrid.call('orders', 'place', { sku: 'tea', quantity: 0 }));
                check('orders.place refuses an empty order', empty === 'empty_order', empty);
                const untyped = await code(hybrid.call('orders', 'place', { sku: 'tea' }));
                check('orders.place params are typed', untyped === 'bad_params', untyped);
                // A CSV the app writes as it makes it, read as a stream (a byte feed: one request).
                const exported = await hybrid.call('exports', 'orders', 5000);
                const csv = exported.csv instanceof ReadableStream ? await new Response(exported.csv).text() : exported.inline;
                check('exports.orders streams through a byte feed', exported.csv instanceof ReadableStream &&
                  csv.split('\\n').length === 5001 && csv.startsWith('0,tea,1\\n'), `${typeof exported.csv}, ${csv.length} characters`);
                // Boot health: the new version is on trial until its page says it works.
                const ready = await code(hybrid.call('app', 'ready'));
                check('app.ready confirms the version', ready === 'accepted', ready);
              } catch (error) {
                check('no exception on the page', false, error && (error.code || error.message) || error);
              }
              await hybrid.call('smoke', 'done', { ok: checks.every((c) => c.ok), checks });
            });
            // "Save receipt": a receipt the page makes, downloaded with <a download> (Smoke.receipt).
            function smokeSaveReceipt() {
              const bytes = new Uint8Array(1024).map((_, i) => (i * 7 + (i >> 8)) & 255);
              const link = document.createElement('a');
              link.href = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
              link.download = 'receipt.bin';
              document.body.appendChild(link);
              link.click();
            }
            // "Attach": the file the app's picker chose, with its name and bytes, back to the app.
            document.getElementById('attach').addEventListener('change', async (event) => {
              const file = event.target.files[0];
              const bytes = file ? Array.from(new Uint8Array(await file.arrayBuffer())) : [];
              await hybrid.call('smoke', 'picked', { name: file ? file.name : '', bytes });
            });

            """,
    ]
}

/// `smoke`: the page's report and the file it picked, for the smoke test only (the quick start knows nothing of it).
struct SmokeModule: BridgeModule {
    struct Check: Codable, Sendable {
        var name: String
        var ok: Bool
        var detail: String
    }
    struct Report: Codable, Sendable {
        var ok: Bool
        var checks: [Check]
    }

    /// A file the page's `<input type=file>` got, as the page read it.
    struct Picked: Codable, Sendable {
        var name: String
        var bytes: [UInt8]
    }

    let name = "smoke"
    let allowedOrigins: [OriginPattern] = ["app://m.example.com"]
    let onDone: @Sendable (Report) -> Void
    let onPicked: @Sendable (Picked) -> Void

    init(onDone: @escaping @Sendable (Report) -> Void, onPicked: @escaping @Sendable (Picked) -> Void) {
        self.onDone = onDone
        self.onPicked = onPicked
    }

    var actions: [BridgeAction] {
        [
            Action("done") { (report: Report, _) in
                onDone(report)
                return BridgeEmpty()
            },
            Action("picked") { (picked: Picked, _) in
                onPicked(picked)
                return BridgeEmpty()
            },
        ]
    }
}

/// `exports.orders`: a CSV of N orders that the app writes while it makes it, streamed to the page
/// through a byte feed (docs/bridge.md, "Streams: byte feeds"): the page reads a `ReadableStream`
/// with one request, however large the export. Where the view has no byte channel, it goes inline.
struct OrderExportModule: BridgeModule {
    struct Export: Encodable, Sendable {
        /// The rows as they are written, where the view has a channel.
        var csv: BridgeByteReference?
        /// The whole text otherwise.
        var inline: String?
    }

    let name = "exports"
    let allowedOrigins: [OriginPattern] = ["app://m.example.com"]

    var actions: [BridgeAction] {
        [Action("orders") { (rows: Int, context) in
            let line = { (row: Int) in "\(row),tea,\(row % 5 + 1)\n" }
            guard let feed = context.openByteFeed() else { return Export(inline: (0..<rows).map(line).joined()) }
            Task.detached {
                // A thousand rows a write, as a database cursor would give them.
                for start in stride(from: 0, to: rows, by: 1000) where feed.isOpen {
                    feed.write(Data((start..<min(start + 1000, rows)).map(line).joined().utf8))
                }
                feed.finish()
            }
            return Export(csv: feed.reference)
        }]
    }
}
