import Foundation
import HybridCore
import HybridFixtures
import Testing

/// The package handler's memory in the real engine: one handler for the life of the app (as an
/// app's `PackageBinding` is) answers the next view's open from memory, yet always what the disk
/// holds.
@Suite("Package files served from memory", .serialized)
@MainActor
struct PackageMemoryEndToEndTests {
    typealias Rig = OfflinePackageRig

    static let look = "getComputedStyle(document.getElementById('headline')).color + ' ' + window.appVersion"

    /// A script replaced on disk from outside (same size), then repaired from the repository,
    /// between opens served by one handler: each open shows what the disk held at that moment,
    /// never the bytes the handler read before. (A new view each time: a reload would revalidate
    /// with the manifest's ETag, which names the published bytes, and keep the engine's copy.)
    @Test(arguments: EngineKind.allCases)
    func aFileReplacedOrRepairedOnDiskIsNeverServedFromMemory(_ kind: EngineKind) async throws {
        let rig = try Rig()
        try rig.publish(version: 1, files: Rig.site(version: 1))
        _ = try await rig.updater.update(Rig.id)
        let handler = rig.handler
        func open() async throws -> JSONValue {
            let engine = try kind.makeEngine(EngineConfiguration(schemeHandlers: [rig.scheme(on: kind): handler]))
            defer { engine.close() }
            try await engine.loadAndWait(rig.entryURL(on: kind))
            return try await engine.evaluate(Self.look)
        }
        #expect(try await open() == "rgb(10, 20, 30) 1")

        // The script, as it now is in memory, replaced by one of the same size that says 9.
        let package = try rig.store.activePackage(Rig.id)
        let script = package.contentsURL(of: try #require(package.manifest.file(at: PackagePath("js/app.js"))))
        let original = try Data(contentsOf: script)
        let planted = Data("window.appVersion=9;".utf8)
        let replaced = planted + Data(repeating: 0x20, count: original.count - planted.count - 1) + Data("\n".utf8)
        let beside = script.deletingLastPathComponent().appendingPathComponent(".replacement")
        try replaced.write(to: beside)
        #expect(rename(beside.path, script.path) == 0)
        #expect(try await open() == "rgb(10, 20, 30) 9")

        // Repaired from the repository: the next open shows the published script again.
        let check = try await PackageIntegrity(installer: rig.installer).checkAtLaunch(Rig.id, repairFrom: rig.updater)
        #expect(check.repaired == ["js/app.js"])
        #expect(try await open() == "rgb(10, 20, 30) 1")
    }
}
