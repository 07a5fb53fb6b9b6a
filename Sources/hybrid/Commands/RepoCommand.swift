import Foundation
import HybridCommandLine
import HybridCore

enum RepoCommand: HybridCommand {
    static let action: CommandArgument<String> = .required("ACTION", choices: ["prune"], help: "what to do with the repository")
    static let repo: CommandArgument<String> = .required("REPO", help: "the static repository")
    static let keep: CommandOption<Int> = .int("--keep", "N", default: 5, in: 1...Int.max, help: "versions to keep per package")
    static let dryRun: CommandOption<Bool> = .flag("--dry-run", help: "print what would go, remove nothing")

    static var table: CommandTable {
        CommandTable(
            name: "repo", summary: "Repository hygiene: prune versions, blobs and patches no retained version needs",
            discussion: """
                Keeps the newest --keep versions of every package in the static repository REPO and
                removes the manifests of older versions, then every blob and patch no kept manifest
                lists (blobs shared between packages stay while any kept version lists them). A client on
                a removed version still updates, with full blobs. Keep at least the --patch-depth packs
                use, so the next pack finds the versions it makes patches from, and prune after a new
                version has reached your CDN, so no client is mid-update on what goes.
                """,
            arguments: [action, repo], options: [keep, dryRun])
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let keep = arguments[Self.keep]
        let dryRun = arguments[Self.dryRun]
        let report = try PackageRepositoryPruner(repository: URL(fileURLWithPath: arguments[Self.repo]), keep: keep).run(dryRun: dryRun)
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
