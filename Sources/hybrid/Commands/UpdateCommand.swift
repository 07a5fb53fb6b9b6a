import Foundation
import HybridCommandLine
import HybridCore
import HybridCrypto

enum UpdateCommand: HybridCommand {
    static let repo: CommandOption<String> = .required("--repo", "URL", help: "the repository (https://…/repo/)")
    static let key: CommandOption<String> = .required("--key", "PUB", help: "the root public key, saved in the store")
    static let store: CommandOption<String> = .required("--store", "DIR", help: "the package store")
    static let id: CommandOption<String?> = .text("--id", "ID", defaultText: "every package in the repository's index.json",
                                                  help: "update this package only")
    static let installID: CommandOption<String?> = .text("--install-id", "ID", help: "this install's id: follow the packages' staged rollouts (hybrid rollout)")
    static let parallel: CommandOption<Int> = .int("--parallel", "N", default: 4, help: "downloads at once")
    static let deadline: CommandOption<Int?> = .int("--deadline", "SECONDS",
                                                    defaultText: String(Int(DownloadDeadlines.standard.overall)),
                                                    help: "abandon a document after this long in all ([timeout])")
    static let stall: CommandOption<Int?> = .int("--stall", "SECONDS",
                                                 defaultText: String(Int(DownloadDeadlines.standard.stall)),
                                                 help: "abandon a document after this long without a byte ([stalled])")

    static var table: CommandTable {
        CommandTable(
            name: "update", summary: "Install or update offline packages from a repository into a local store",
            discussion: """
                Fetches each package's signed pointer and manifest from the repository at URL, refuses a
                bad signature, a downgrade or an expired manifest (following the repository's key rotations
                from the root key PUB, saved in the store), downloads only the blobs the store
                lacks, each the cheapest way that works (a byte-level patch from content the store holds,
                else the full blob, resuming partial ones; a patch that fails falls back to the full blob),
                and activates the new version atomically. Prints the way each fetched file took. Without --id,
                every package in the repository's index.json is updated. Exits 1 if any update failed;
                the previously active version keeps serving.

                Every document stops at its size limit as it arrives (a declared Content-Length over it
                is refused before reading: [too_large]), is abandoned after --stall seconds without a
                byte ([stalled]) and after --deadline seconds in all ([timeout]).

                With --install-id, a package's staged rollout (packages/ID/rollout.json) decides the version:
                the candidate when the install's bucket is inside the current stage, the baseline otherwise;
                a halted rollout blocks the candidate and moves the store back to the baseline it kept.
                """,
            options: [repo, key, store, id, installID, parallel, deadline, stall])
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let repo = arguments[Self.repo]
        let key = arguments[Self.key]
        let storePath = arguments[Self.store]
        let onlyID = arguments[Self.id]
        let parallel = arguments[Self.parallel]
        let deadline = arguments[Self.deadline].map(TimeInterval.init) ?? DownloadDeadlines.standard.overall
        let stall = arguments[Self.stall].map(TimeInterval.init) ?? DownloadDeadlines.standard.stall
        guard let repository = URL(string: repo), repository.scheme != nil else {
            throw CommandLineError.invalid(option: "--repo", value: repo, expected: "a URL (https://…/repo/)")
        }
        let root = try Ed25519KeyFiles.verifier(at: URL(fileURLWithPath: key))
        let store = PackageStore(root: URL(fileURLWithPath: storePath))
        // The root key, and the rotations this store has followed (replayed and re-checked each run).
        let verifier = TrustedKeySet.ed25519(roots: [TrustedKey(publicKey: root.publicKey)],
                                             stateURL: URL(fileURLWithPath: storePath).appendingPathComponent("state/keys.json"))
        let installer = PackageInstaller(store: store, platform: .native, verifier: verifier)
        let updater = PackageUpdater(repository: repository, installer: installer, parallelDownloads: parallel,
                                     deadlines: DownloadDeadlines(overall: deadline, stall: stall), installID: arguments[Self.installID])
        return blockingRun { await update(updater, onlyID: onlyID) }
    }

    private static func update(_ updater: PackageUpdater, onlyID: String?) async -> Int32 {
        let ids: [String]
        if let onlyID {
            ids = [onlyID]
        } else {
            do { ids = try await updater.availablePackages() } catch {
                FileHandle.standardError.write(Data("hybrid update: \(error)\n".utf8))
                return 1
            }
        }
        var failed = 0
        for id in ids {
            let bar = TerminalProgress(label: id)
            do {
                let report = try await updater.update(id) { progress in
                    guard progress.phase == .downloading else { return }
                    bar.show(done: progress.bytesReceived, total: progress.bytesExpected, detail: "\(progress.blobsDone)/\(progress.blobsTotal) blobs")
                }
                bar.finish()
                print(describe(report))
                let fetched = report.files.filter { $0.way != .installed }
                for file in fetched.prefix(20) {
                    var line = "  \(file.way.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0)) \(file.path): \(TerminalProgress.bytes(file.bytesFetched))"
                    if file.way == .patch { line += " (full blob \(TerminalProgress.bytes(file.fullBytes)))" }
                    print(line)
                    for reason in file.fallbacks { print("        fell back: \(reason)") }
                }
                if fetched.count > 20 { print("  … and \(fetched.count - 20) more") }
            } catch {
                bar.finish()
                failed += 1
                let code = (error as? HybridError)?.code ?? "error"
                print("\(id): FAILED [\(code)] \(error)")
                if let active = updater.installer.store.activeVersion(id) { print("\(id): version \(active) still active") }
            }
        }
        return failed == 0 ? 0 : 1
    }

    private static func describe(_ report: PackageUpdater.Report) -> String {
        let rollout = report.rollout.map { rollout in
            "\(report.id): rollout \(rollout.state.rawValue) at \(String(format: "%g", rollout.percent)) %, this install "
                + (rollout.inside ? "inside" : "outside") + ": version \(rollout.target)"
                + (rollout.returnedToKept ? " (back to the version the store kept, nothing fetched)" : "") + "\n"
        } ?? ""
        return rollout + describeUpdate(report)
    }

    private static func describeUpdate(_ report: PackageUpdater.Report) -> String {
        if report.upToDate { return "\(report.id): up to date (version \(report.previousVersion.map(String.init) ?? "none"))" }
        var line = "\(report.id): "
        switch report.outcome {
        case .installed(let version, let previous)?: line += "installed version \(version)" + (previous.map { " (previous \($0) kept until it loads)" } ?? "")
        case .alreadyActive(let version)?: line += "version \(version) already active"
        case nil: line += "no change"
        }
        line += "; fetched \(report.blobsFetched) blob(s), \(TerminalProgress.bytes(report.bytesFetched))"
        if report.bytesResumed > 0 { line += " (+\(TerminalProgress.bytes(report.bytesResumed)) resumed)" }
        if report.patchesApplied > 0 { line += ", \(report.patchesApplied) file(s) by patch" }
        line += ", reused \(report.blobsReused), documents \(TerminalProgress.bytes(report.documentBytes))"
        line += "; total \(TerminalProgress.bytes(report.totalBytes)) (file-level \(TerminalProgress.bytes(report.fileLevelBytes)),"
            + " full \(TerminalProgress.bytes(report.fullUpdateBytes))) in \(String(format: "%.2f", report.duration)) s"
        return line
    }

    /// Runs async work from the synchronous command frame, blocking this thread until it ends.
    private static func blockingRun(_ body: @escaping @Sendable () async -> Int32) -> Int32 {
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox()
        Task.detached {
            result.value = await body()
            done.signal()
        }
        done.wait()
        return result.value
    }

    private final class ResultBox: @unchecked Sendable {
        // Written once by the task before the semaphore is signalled, read after the wait.
        var value: Int32 = 1
    }
}
