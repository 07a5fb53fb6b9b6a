// README.md's "Quick start: app developers (Swift)" is the code between the two markers below,
// byte for byte (scripts/check-quickstart.sh fails `make test` when they differ). Edit it here,
// then paste it into the README's Swift block. The smoke test in Smoke.swift runs it.
// quick-start:begin
import Foundation
import HybridCore
import HybridCrypto       // Ed25519: the offline package and the remote config are signed
import HybridGTK          // the engine on Linux; HybridWK / HybridUIKit on iOS

/// A bridge module of your own: `hybrid.call('orders', 'place', { sku: 'tea', quantity: 2 })`.
struct OrdersModule: BridgeModule {
    struct Order: Codable, Sendable { var sku: String; var quantity: Int }
    struct Receipt: Codable, Sendable { var sku: String; var quantity: Int; var number: String }

    let name = "orders"
    let allowedOrigins: [OriginPattern] = ["app://m.example.com"]   // default deny: only the shop's pages
    var actions: [BridgeAction] {
        [Action("place") { (order: Order, _) in                     // params decoded with Codable
            guard order.quantity > 0 else {                         // reaches JS as error.code "empty_order"
                throw BridgeFailure.module(code: "empty_order", message: "nothing to order", data: nil)
            }
            return Receipt(sku: order.sku, quantity: order.quantity, number: UUID().uuidString)
        }]
    }
}

/// The app's side of its containers; every method has a default, implement what you show.
final class ShopDelegate: HybridWebViewDelegate {
    let files: ShopFiles                                            // downloads, file picker, camera: ShopFiles.swift
    init(files: ShopFiles) { self.files = files }
    func webView(_ webView: HybridWebView, runDialog completion: ScriptDialogCompletion) {
        completion.complete(.accepted())                            // show your own alert/confirm UI here
    }
    func webView(_ webView: HybridWebView, didDetectWhiteScreen event: WhiteScreenEvent) {
        print("white screen (\(event.reason.code)): \(event.recovery)")   // already being recovered
    }
    func webView(_ webView: HybridWebView, didRestore event: PageRestoreEvent) {
        print("restored \(event.url) (\(event.reason.code)), \(event.lostMs) ms lost")   // docs/restore.md
    }
}

/// Opens the shop and runs until `done` returns. `repository` is where the publisher put the
/// package and the config (`hybrid pack`, `hybrid config sign`), `publicKey` their Ed25519 key
/// (shipped with the app), `data` the app's own directory.
func runShop<T: Sendable>(repository: URL, publicKey: URL, data: URL,
                          until done: @escaping @MainActor @Sendable (HybridWebView) async throws -> T) throws -> T {
    // Linux: GLib owns the main thread and runs the MainActor (docs/architecture-notes.md).
    try GLibMainLoop.run { @MainActor in
        let verifier = try Ed25519KeyFiles.verifier(at: publicKey)
        // Health: launches, first paint, ready, script errors, white screens and updates per
        // release, as OpenTelemetry log lines on the device (`hybrid health FILE` summarises them).
        let health = HealthRecorder(sinks: [HealthLogFile(url: data.appendingPathComponent("health.jsonl"),
                                                          serviceName: "Shop", serviceVersion: "1.0")])

        // The install's stable id: its rollout bucket, for remote config and staged package rollouts.
        let cache = RemoteConfigCache(directory: data.appendingPathComponent("config"))
        let installID = try cache.installID()

        // The offline package: signature checked, then only the files that changed are fetched; a
        // staged rollout (`hybrid rollout`) decides whether this install gets the new version yet.
        // Offline, the update fails and the version already installed serves.
        let store = PackageStore(root: data.appendingPathComponent("packages"))
        let installer = PackageInstaller(store: store, platform: .native, verifier: verifier)
        let updater = PackageUpdater(repository: repository, installer: installer, health: health, healthEngine: "webkit",
                                     installID: installID)
        _ = try? await updater.update("shop")
        let packages = ["shop": PackageBinding(installer: installer, id: "shop", scheme: "app")]

        // Remote config: which features and engine each page gets; signed, cached, never downgraded.
        // Offline: the cached document, else safe defaults (`config.start()` refreshes every 15 min).
        let options = RemoteConfigClient.Options(repository: repository, cache: cache, installID: installID)
        let config = RemoteConfigClient(options: options, verifier: verifier)
        _ = try? await config.refresh()

        let engines = EngineRegistry(defaultProvider: try GTKEngineProvider(
            session: .persistent(directory: data.appendingPathComponent("web"))))
        let provisions = try FeatureProvisions(jar: CookieJar())    // the app's jar: cookies' source of truth
        // Data prefetch (docs/first-screen.md): a config rule's `prefetch` requests start at the open,
        // for the shop's pages, from the shop's API only. One declaring `"keep": {"maxAge": 60,
        // "maxStale": 86400}` is kept here between launches (per cookie identity, bounded): the next
        // open renders it at once (`hybrid.prefetched(key, {stale: true})`) while it is refreshed.
        provisions.prefetchOrigins = ["app://m.example.com"]
        provisions.prefetchTargets = ["https://api.example.com"]
        provisions.prefetchKeepStore = ProxyCache.Configuration(directory: data.appendingPathComponent("prefetch-keep"),
                                                                maxDiskBytes: 4 << 20, maxEntries: 128)
        var base = HybridWebViewConfiguration(modules: [
            DeviceModule(appName: "Shop", appVersion: "1.0", allowedOrigins: ["app://m.example.com"]),
            OrdersModule(),
        ])
        base.health = health
        let files = ShopFiles(directory: data)                      // downloads placed in the app's folder
        base.permissions = files.permissions                        // camera & co.: denied unless listed

        // The shop's pages as the config decides: package, cookie sync, engine, in a warm pool.
        let home = URL(string: "app://m.example.com/shop/")!       // the package, else the network
        let pool = await WebViewPool.make(for: config.features(for: home), engines: engines,
                                          configuration: base, packages: packages, provisions: provisions)
        // Prerender (docs/prerender.md): a shop page may name its next page (speculation rules,
        // `hybrid.prerender`), the app may too (`pool.prerender(url)`); `pool.open(url)` then shows
        // it at once. Orders calls of a page still hidden wait until it is shown.
        pool.prerenderPolicy = PrerenderPolicy(effectfulModules: ["navigation", "ui", "orders"], pagesMayPrerender: true)
        await pool.prewarm()                                        // at launch: the first open is fast
        let view = try await pool.dequeue()
        let delegate = ShopDelegate(files: files)
        view.delegate = delegate                                    // dialogs, downloads, white screens
        let token = view.observe { state in                         // URL, title, progress, back/forward
            if state.progress.isComplete, let url = state.url { print("shown: \(url)") }
        }
        view.open(home)                                             // its prefetches start, then it loads
        defer { token.cancel(); view.close(); pool.drain() }
        return try await done(view)
    }
}
// quick-start:end
