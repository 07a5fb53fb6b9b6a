#if os(Linux)
import Foundation
import HybridCommandLine
import HybridCore
import HybridCrypto
import HybridServer

/// The publisher's and the client's side of the demo package, with the real code of
/// `hybrid keygen`, `hybrid pack`, `hybrid serve` and `hybrid update`: a fresh key, a fresh
/// repository served on a loopback port, and a package store the updater installs into.
@MainActor
final class DemoPublisher {
    static let packageID = "demo"
    /// The origin the package serves; the container loads it as `app://demo.hybridkit.invalid/`.
    static let origin = "https://demo.hybridkit.invalid/"
    static let scheme = "app"

    let work: URL
    let source: URL
    let repository: URL
    let store: PackageStore
    let installer: PackageInstaller
    private let signer: Ed25519Signer
    private let server: StaticSiteServer
    /// What the v1 install and the v2 update fetched.
    private(set) var installs: [PackageUpdater.Report] = []
    private(set) var packs: [PackageWriter.Report] = []

    /// Makes the key, packs `source` as version 1, serves the repository and installs it.
    init(source: URL, work: URL) async throws {
        self.source = source
        self.work = work
        repository = work.appendingPathComponent("repo", isDirectory: true)
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
        Self.progress("generating a fresh Ed25519 key")
        signer = try Ed25519KeyFiles.generate(into: work.appendingPathComponent("keys", isDirectory: true))
        let verifier = try Ed25519KeyFiles.verifier(at: work.appendingPathComponent("keys/public"))
        store = PackageStore(root: work.appendingPathComponent("store", isDirectory: true))
        installer = PackageInstaller(store: store, platform: .native, verifier: verifier)
        Self.progress("starting hybrid serve on loopback")
        server = try StaticSiteServer(root: repository, port: 0)
        try pack(source, version: 1)
        try await update()
    }

    isolated deinit { server.stop() }

    var repositoryURL: URL { server.url }

    /// `hybrid pack DIR --version N` into the repository.
    func pack(_ directory: URL, version: Int) throws {
        let writer = PackageWriter(repository: repository, platform: .native, signer: signer)
        let options = PackageWriter.Options(id: Self.packageID, version: version, origin: Self.origin, lifetime: 86_400)
        let bar = TerminalProgress(label: "packing v\(version)")
        let report = try writer.pack(directory, options: options) { progress in
            bar.show(done: progress.bytesDone, total: progress.bytesTotal, detail: "\(progress.filesDone)/\(progress.filesTotal) files")
        }
        bar.finish()
        packs.append(report)
        progress("packed \(Self.packageID) v\(version): \(report.manifest.files.count) files, \(report.blobsAdded) new blobs, \(report.blobsReused) reused")
    }

    /// `hybrid update --id demo` from the served repository into the store.
    @discardableResult
    func update() async throws -> PackageUpdater.Report {
        let updater = PackageUpdater(repository: repositoryURL, installer: installer)
        let bar = TerminalProgress(label: "updating \(Self.packageID)")
        let report = try await updater.update(Self.packageID) { progress in
            guard progress.phase == .downloading else { return }
            bar.show(done: progress.bytesReceived, total: progress.bytesExpected, detail: "\(progress.blobsDone)/\(progress.blobsTotal) blobs")
        }
        bar.finish()
        installs.append(report)
        progress("installed \(Self.packageID) v\(store.activeVersion(Self.packageID) ?? 0): fetched \(report.blobsFetched) blobs "
                 + "(\(TerminalProgress.bytes(report.bytesFetched))), reused \(report.blobsReused)")
        return report
    }

    /// Version 2: the demo with `version.js` changed (one file; every other blob is reused).
    func packVersion2() throws {
        let copy = work.appendingPathComponent("source-v2", isDirectory: true)
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: source, to: copy)
        try Data("// Packed by `make demo` as the update.\nwindow.DEMO_VERSION = 2;\n".utf8)
            .write(to: copy.appendingPathComponent("version.js"))
        try pack(copy, version: 2)
    }

    /// The binding a container serves the package through.
    var binding: PackageBinding {
        PackageBinding(installer: installer, id: Self.packageID, scheme: Self.scheme)
    }

    /// `app://demo.hybridkit.invalid/PATH`.
    static func url(_ path: String) -> URL {
        URL(string: "\(scheme)://demo.hybridkit.invalid/\(path)")!
    }

    private nonisolated func progress(_ text: String) { Self.progress(text) }

    private nonisolated static func progress(_ text: String) {
        FileHandle.standardError.write(Data("demo: \(text)\n".utf8))
    }
}
#endif
