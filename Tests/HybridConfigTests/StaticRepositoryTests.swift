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
import HybridServer
import HybridFixtures
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A repository (packages + config) on disk, served by either `hybrid serve` or nginx.
final class StaticRepository: @unchecked Sendable {
    let root: URL
    let config: ConfigFixture
    let platform = PackagePlatform.native

    init() throws {
        config = try ConfigFixture()
        root = config.directory
    }

    deinit { config.cleanUp() }

    var repository: URL { root.appendingPathComponent("repo") }

    /// Packs `app` version `version`: 20 files, `changed` of them different from version 1.
    @discardableResult
    func publishPackage(version: Int, changed: Int = 0) throws -> PackageWriter.Report {
        let site = root.appendingPathComponent("site-\(version)")
        var files: [String: String] = ["index.html": "<!doctype html><title>app</title>" + String(repeating: "<p>hello</p>\n", count: 80)]
        for index in 0..<12 { files["js/m\(index).js"] = String(repeating: "export const m\(index) = \(index);\n", count: 40) }
        for index in 0..<7 { files["img/i\(index).png"] = "\u{89}PNG" + String(repeating: "\(index)", count: 5_000) }
        for index in 0..<changed { files["js/m\(index).js"] = "export const m\(index) = 'v\(version)';\n" }
        for (path, contents) in files {
            let url = site.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: url)
        }
        let writer = PackageWriter(repository: repository, platform: platform, signer: config.signer)
        return try writer.pack(site, options: .init(id: "app", version: version, origin: "https://m.example.com/app/"))
    }

    func publishConfig(version: Int, killSwitch: Bool = false) throws {
        try config.publish(try ConfigFixture.document(version: version, created: Date().addingTimeInterval(-60), killSwitch: killSwitch),
                           into: repository)
    }

    func updater(_ base: URL) -> PackageUpdater {
        let store = PackageStore(.init(root: root.appendingPathComponent("store"), gcGracePeriod: 0))
        return PackageUpdater(repository: base, installer: PackageInstaller(store: store, platform: platform, verifier: config.verifier),
                              parallelDownloads: 4, timeout: 10)
    }

    func configClient(_ base: URL) -> RemoteConfigClient {
        config.client(now: Date(), installID: "install-1", repository: base)
    }
}

/// One ephemeral URLSession request; returns status, headers and body.
func fetch(_ url: URL, headers: [String: String] = [:]) async throws -> (status: Int, headers: [AnyHashable: Any], body: Data) {
    var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 10)
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(for: request)
    let http = response as! HTTPURLResponse
    return (http.statusCode, http.allHeaderFields, data)
}

@Suite("Static by design: the same repository on hybrid serve and on nginx", .serialized)
struct StaticRepositoryTests {
    enum Host: String, CaseIterable, Sendable { case hybridServe = "hybrid serve", nginx }

    /// Skips the nginx case (only) where Debian's nginx is missing: the `hybrid serve` case of
    /// the same test needs nothing but this package, so it always runs.
    static func require(_ host: Host) throws {
        guard host == .nginx, !NginxProcess.isAvailable else { return }
        try Test.cancel("needs Debian's nginx (/usr/sbin/nginx) for the nginx case; the hybrid serve case ran")
    }

    /// Serves `repository` with `host` for the duration of `body`.
    static func serving<T>(_ repository: URL, with host: Host, _ body: (URL) async throws -> T) async throws -> T {
        switch host {
        case .hybridServe:
            let server = try StaticSiteServer(root: repository)
            defer { server.stop() }
            return try await body(server.url)
        case .nginx:
            let nginx = try await offPool { try NginxProcess(root: repository) }
            defer { nginx.stop() }
            return try await body(nginx.url("/"))
        }
    }

    @Test(arguments: Host.allCases)
    func updaterAndConfigClientRunUnchanged(host: Host) async throws {
        try Self.require(host)
        let repo = try StaticRepository()
        let v1 = try repo.publishPackage(version: 1)
        try repo.publishConfig(version: 1)
        try await Self.serving(repo.repository, with: host) { base in
            let updater = repo.updater(base)
            #expect(try await updater.availablePackages() == ["app"])
            let first = try await updater.update("app")
            #expect(first.outcome == .installed(version: 1, previous: nil), "\(host.rawValue)")
            #expect(first.blobsFetched == v1.manifest.files.count)

            let client = repo.configClient(base)
            #expect(try await client.refresh() == .updated(from: nil, to: 1))
            #expect(client.features(for: URL(string: "https://m.example.com/app/index.html")!).features.offlinePackage == "app")
            #expect(try await client.refresh() == .unchanged(1))

            // A new version of each, published while the server runs: only what changed crosses.
            try repo.publishPackage(version: 2, changed: 2)
            try repo.publishConfig(version: 2, killSwitch: true)
            let second = try await updater.update("app")
            #expect(second.outcome == .installed(version: 2, previous: 1))
            #expect(second.blobsFetched == 2)
            #expect(try await client.refresh() == .updated(from: 1, to: 2))
            #expect(client.features(for: URL(string: "https://m.example.com/app/")!).source == .killSwitch)

            // A rolled-back repository is refused the same way on either host.
            try repo.publishConfig(version: 1)
            await #expect { try await client.refresh() } throws: { ($0 as? HybridError)?.code == "version_rollback" }
            #expect(client.config?.version == 2)
        }
    }

    @Test func periodicRefreshPicksUpNewVersionsAndSurvivesOutages() async throws {
        let repo = try StaticRepository()
        try repo.publishConfig(version: 1)
        let server = try StaticSiteServer(root: repo.repository)
        defer { server.stop() }
        let events = LogBox()
        let options = RemoteConfigClient.Options(repository: server.url, cache: RemoteConfigCache(directory: repo.root.appendingPathComponent("cache")),
                                                 installID: "i", refreshInterval: 0.2, timeout: 5)
        let client = RemoteConfigClient(options: options, verifier: repo.config.verifier, onRefresh: { result in
            switch result {
            case .success(let outcome): events.append("\(outcome)")
            case .failure(let error): events.append(error.code)
            }
        })
        client.start()
        defer { client.stop() }
        try await eventually("config version 1", timeout: 10) { client.config?.version == 1 }
        // The repository loses its config for a while: the client keeps what it has.
        try FileManager.default.removeItem(at: repo.repository.appendingPathComponent(ConfigRepositoryLayout.document))
        try await eventually("the http_status event", timeout: 10) { events.lines.contains("http_status") }
        #expect(client.config?.version == 1)
        try repo.publishConfig(version: 2)
        try await eventually("config version 2", timeout: 10) { client.config?.version == 2 }
    }

    @Test(arguments: Host.allCases)
    func cachingRangesAndTypesMatchWhatClientsExpect(host: Host) async throws {
        try Self.require(host)
        let repo = try StaticRepository()
        let report = try repo.publishPackage(version: 1)
        try repo.publishConfig(version: 1)
        try await Self.serving(repo.repository, with: host) { base in
            let config = base.appendingPathComponent(ConfigRepositoryLayout.document)
            let whole = try await fetch(config)
            #expect(whole.status == 200)
            #expect((whole.headers["Content-Type"] as? String)?.hasPrefix("application/json") == true)
            let etag = try #require(whole.headers["Etag"] as? String ?? whole.headers["ETag"] as? String)
            #expect(try await fetch(config, headers: ["If-None-Match": etag]).status == 304)

            // The resume path of the updater: a byte range of a blob.
            let file = try #require(report.manifest.files.max { $0.storedSize < $1.storedSize })
            let blob = base.appendingPathComponent(PackageRepositoryLayout.blob(file.blob))
            let full = try await fetch(blob)
            let tail = try await fetch(blob, headers: ["Range": "bytes=100-"])
            #expect(tail.status == 206)
            #expect(tail.body == full.body.subdata(in: 100..<full.body.count))
            #expect(try await fetch(blob, headers: ["Range": "bytes=\(full.body.count + 10)-"]).status == 416)
            #expect(try await fetch(base.appendingPathComponent("nothing/here")).status == 404)
        }
    }
}
