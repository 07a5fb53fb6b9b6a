import Foundation
import HybridCommandLine
import HybridCore

enum RepoCommand: HybridCommand {
    static let name = "repo"
    static let summary = "Repository hygiene: prune versions, blobs and patches no retained version needs"
    static let usage = """
        USAGE: hybrid repo prune REPO [--keep 5] [--dry-run]

        Keeps the newest --keep versions of every package in the static repository REPO and
        removes the manifests of older versions, then every blob and patch no kept manifest
        lists (blobs shared between packages stay while any kept version lists them). A client on
        a removed version still updates, with full blobs. Keep at least the --patch-depth packs
        use, so the next pack finds the versions it makes patches from, and prune after a new
        version has reached your CDN, so no client is mid-update on what goes.

        OPTIONS:
          --keep N      versions to keep per package (default 5, at least 1)
          --dry-run     print what would go, remove nothing
        """

    static func run(_ arguments: Arguments) throws -> Int32 {
        var arguments = arguments
        let keep = try arguments.int("--keep") ?? 5
        let dryRun = arguments.flag("--dry-run")
        let positionals = try arguments.finish(maxPositionals: 2)
        guard positionals.first == "prune" else {
            throw Arguments.Error.invalid(option: "SUBCOMMAND", value: positionals.first ?? "(none)", expected: "prune")
        }
        guard positionals.count == 2 else { throw Arguments.Error.missingRequired("REPO") }
        guard keep >= 1 else { throw Arguments.Error.invalid(option: "--keep", value: "\(keep)", expected: "at least 1") }
        let report = try PackageRepositoryPruner(repository: URL(fileURLWithPath: positionals[1]), keep: keep).run(dryRun: dryRun)
        let verb = dryRun ? "would remove" : "removed"
        for (id, versions) in report.retained.sorted(by: { $0.key < $1.key }) {
            let removed = report.removedVersions[id] ?? []
            print("\(id): keeping \(versions.map(String.init).joined(separator: ", "))"
                  + (removed.isEmpty ? "" : "; \(verb) \(removed.map(String.init).joined(separator: ", "))"))
        }
        print("\(verb) \(report.removedBlobs) blob(s) and patch(es), \(TerminalProgress.bytes(report.removedBytes))")
        return 0
    }
}
