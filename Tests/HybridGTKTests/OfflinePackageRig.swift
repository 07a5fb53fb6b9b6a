import Foundation
import HybridCore
import HybridCrypto
import HybridServer
import HybridFixtures

/// Everything issue 5's end-to-end story needs, for real: a publisher with a fresh key packing
/// into a repository on disk, HybridServer serving that repository over loopback HTTP, a second
/// loopback server standing in for the package's real origin (for what the package lacks), and
/// a client store with its installer and updater.
final class OfflinePackageRig: @unchecked Sendable {
    static let id = "shop"
    /// The custom scheme the engine loads the package through (http/https cannot be taken over).
    static let scheme = "offline-app"

    let root: URL
    let signer: Ed25519Signer
    let verifier: Ed25519Verifier
    let repositoryServer: LoopbackServer
    let originServer: LoopbackServer
    /// Paths the origin was asked for: anything here went to the network, not the package.
    let originRequests = Locked<[String]>([])
    let platform = PackagePlatform.native

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("hk-offline-e2e-\(UUID().uuidString)")
        let keys = root.appendingPathComponent("keys")
        // Keys as `hybrid keygen` writes them, read back the way an app reads its public key.
        signer = try Ed25519KeyFiles.generate(into: keys)
        verifier = try Ed25519KeyFiles.verifier(at: keys.appendingPathComponent(Ed25519KeyFiles.publicName))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("repo"), withIntermediateDirectories: true)
        repositoryServer = try LoopbackServer()
        repositoryServer.serveDirectory(root.appendingPathComponent("repo"), at: "/repo")
        originServer = try LoopbackServer()
        let log = originRequests
        originServer.route("/") { request in
            log.mutate { $0.append(request.path) }
            return request.path == "/app/network-only.txt" ? .text("from the network origin") : .status(404)
        }
    }

    deinit {
        repositoryServer.stop()
        originServer.stop()
        try? FileManager.default.removeItem(at: root)
    }

    var repository: URL { root.appendingPathComponent("repo") }
    /// No GC grace period: a blob nothing references is collected at once, so tests can see it go.
    var store: PackageStore { PackageStore(.init(root: root.appendingPathComponent("store"), lockTimeout: 10, gcGracePeriod: 0)) }
    var installer: PackageInstaller { PackageInstaller(store: store, platform: platform, verifier: verifier) }
    var updater: PackageUpdater { PackageUpdater(repository: repositoryServer.url("/repo/"), installer: installer, timeout: 10) }

    /// The store's active record, spelled out (its memberwise initialiser is not public).
    var activeState: String? {
        store.activeRecord(Self.id).map { record in
            "current \(record.current)" + (record.previous.map { ", previous \($0)" } ?? "") + (record.confirmed ? ", confirmed" : ", unconfirmed")
        }
    }

    /// The origin the package serves: the origin server's `/app/`.
    var origin: URL { originServer.url("/app/") }
    /// The scheme the package is served through on `kind`: the custom scheme, or the origin's
    /// own (`http`) on an engine that cannot navigate to a custom scheme but intercepts HTTP
    /// (Blink: the package at its real origin, as Android's asset loader does).
    @MainActor func scheme(on kind: EngineKind) -> String {
        kind.capabilities.contains(.customSchemeNavigation) ? Self.scheme : "http"
    }

    /// The package's entry on `kind`: the custom scheme with the origin's host and port, or the origin itself.
    @MainActor func entryURL(on kind: EngineKind) -> URL {
        URL(string: "\(scheme(on: kind))://\(originServer.host):\(originServer.port)/app/")!
    }

    /// The scheme handler an app would register, reading the store's active version per request.
    var handler: PackageSchemeHandler { PackageSchemeHandler(store: store, id: Self.id, customScheme: Self.scheme) }

    /// A view serving the package through the custom scheme; `seen` records each request URL the
    /// engine handed the scheme (what the page's URL parser left of hostile paths).
    @MainActor func makeEngine(_ kind: EngineKind, seen: Locked<[String]> = Locked([])) throws -> any WebEngine {
        let handler = self.handler
        let recording = ClosureSchemeHandler { request in
            seen.mutate { $0.append(request.url.absoluteString) }
            return try await handler.respond(to: request)
        }
        return try kind.makeEngine(EngineConfiguration(schemeHandlers: [scheme(on: kind): recording]))
    }

    /// Writes `files` as the site directory and packs it as `version`.
    @discardableResult
    func publish(version: Int, files: [String: Data]) throws -> PackageWriter.Report {
        let site = root.appendingPathComponent("site-\(version)")
        for (path, contents) in files {
            let url = site.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try contents.write(to: url)
        }
        let writer = PackageWriter(repository: repository, platform: platform, signer: signer)
        return try writer.pack(site, options: .init(id: Self.id, version: version, origin: origin.absoluteString))
    }

    /// A 60 KB minified-looking script of 600 one-line functions (`m0`…`m599`); its middle line sets
    /// `window.bundleVersion`, so two versions differ by one line.
    static func bundle(version: Int) -> Data {
        let words = ["props", "state", "children", "dispatch", "payload", "current", "value", "target"]
        var lines = (0..<600).map { index in
            let hash = (index &* 2_654_435_761) % 1_000_003
            return "function m\(index)(e,t,n){var r=n(\(hash % 997)),o=\(hash);return t.createElement(r.\(words[hash % 8]),o^\(index % 13),\"item-\(hash % 7919)\")}"
        }
        lines[300] += "\nwindow.bundleVersion=\(version);"
        return Data(lines.joined(separator: "\n").utf8)
    }

    /// A small shop page: HTML, CSS, JS, a PNG and a binary file for Range requests. Version 2
    /// changes the HTML, CSS and JS; the image and the binary stay (their blobs are reused).
    static func site(version: Int) -> [String: Data] {
        let color = version == 1 ? "rgb(10, 20, 30)" : "rgb(200, 100, 50)"
        return [
            "index.html": Data("""
                <!doctype html><html><head><meta charset="utf-8"><title>Shop v\(version)</title>
                <link rel="stylesheet" href="css/site.css"><script src="js/app.js"></script></head>
                <body><h1 id="headline">Welcome to v\(version)</h1><img id="logo" src="img/logo.png" alt="logo"></body></html>
                """.utf8),
            "css/site.css": Data("#headline { color: \(color); }\n".utf8),
            // The page's own script probes the package CSP (an evaluate from the host would not:
            // Chromium exempts DevTools evaluation from the page's CSP).
            "js/app.js": Data("""
                window.appVersion = \(version);
                window.evalProbe = (() => { try { eval('1'); return 'allowed'; } catch (e) { return e.name; } })();
                // Boot health: in a container the version is on trial until its page says it works.
                if (window.hybrid) hybrid.call('app', 'ready').catch(() => {});

                """.utf8),
            "img/logo.png": TestPNG.rgb(width: 6, height: 4) { x, y in (UInt8(x * 40), UInt8(y * 60), 200) },
            "media/tone.bin": Data((0..<4096).map { UInt8($0 % 251) }),
        ]
    }
}
