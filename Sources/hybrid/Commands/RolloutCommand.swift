import Foundation
import HybridCommandLine
import HybridCore
import HybridCrypto

/// `hybrid rollout start|advance|halt|status`: a package's staged rollout document in a repository.
enum RolloutCommand: HybridCommand {
    static let action: CommandArgument<String> = .required("ACTION", choices: ["start", "advance", "halt", "status"],
                                                           help: "start, advance (--auto: by health), halt, or status")
    static let files: CommandArgument<[String]> = .repeated("HEALTH.jsonl", help: "with advance --auto: the health logs to judge by")
    static let repo: CommandOption<String> = .required("--repo", "REPO", help: "the static repository")
    static let id: CommandOption<String> = .required("--id", "ID", help: "the package")
    static let key: CommandOption<String?> = .text("--key", "KEYDIR/private", help: "the private key that signs (start, advance, halt); for status, the public key (KEYDIR/public) that verifies")
    static let candidate: CommandOption<Int?> = .int("--candidate", "N", in: 1...Int.max, help: "start: the version to roll out (packed, e.g. with --staged)")
    static let baseline: CommandOption<Int?> = .int("--baseline", "N", in: 1...Int.max,
                                                    defaultText: "the version latest.json names", help: "start: the version everyone else stays on")
    static let stages: CommandOption<String> = .text("--stages", "P,P,…", default: "1,10,50,100",
                                                     help: "start: percentages of install buckets, rising, ending at 100")
    static let reason: CommandOption<String?> = .text("--reason", "TEXT", help: "why (halt; advance)")
    static let auto: CommandOption<Bool> = .flag("--auto", help: "advance: compare candidate and baseline in the health logs; advance, halt or wait by the verdict")
    static let minimumLaunches: CommandOption<Int> = .int("--min-launches", "N", default: HealthComparison.Rule().minimumLaunches,
                                                          in: 1...Int.max, help: "advance --auto: launches each side needs before anything is judged")

    static var table: CommandTable {
        CommandTable(
            name: "rollout", summary: "Staged package rollouts: start, advance (by health with --auto), halt, status",
            discussion: """
                Writes packages/ID/rollout.json and its signature into REPO (docs/offline-packages.md,
                "Staged rollouts"). start rolls --candidate out over --baseline at the first of --stages
                and points latest.json at the baseline; advance moves to the next stage (at 100 % the
                rollout completes and latest.json names the candidate); halt blocks the candidate on every
                install and sends installs on it back to the baseline. With --auto, advance first compares
                the candidate's health with the baseline's in the HEALTH.jsonl files (one-sided
                two-proportion tests, docs/health.md) and prints the verdict and its reason: halt halts,
                advance advances, wait (too few launches) writes nothing. status verifies the document's
                signature with the public --key (following the repository's key rotations, as a client
                does) and prints it; an unsigned, altered or foreign-signed document is refused
                (missing_signature, bad_signature) and not printed.
                Exit status: 0 done (or waiting), 3 halted by --auto, 1 on an error.
                """,
            arguments: [action, files],
            options: [repo, id, key, candidate, baseline, stages, reason, auto, minimumLaunches])
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let repository = URL(fileURLWithPath: arguments[Self.repo])
        let id = arguments[Self.id]
        let action = arguments[Self.action]
        if action == "status" {
            guard let key = arguments[Self.key] else {
                throw CommandLineError.missingRequired("--key KEYDIR/public (rollout status verifies the document's signature)")
            }
            let keys = try VerifyCommand.repositoryKeys(root: URL(fileURLWithPath: key), repository: repository)
            let found: PackageRollout?
            do {
                found = try PackageRolloutPublisher.current(in: repository, id: id, verifier: keys)
            } catch let error as HybridError {
                // Refused, as a client would refuse it: the document is not shown.
                print("\(id): REFUSED [\(error.code)] \(error)")
                return 1
            }
            guard let rollout = found else {
                print("\(id): no rollout")
                return 0
            }
            print(describe(rollout))
            print("  signature: verified (key \(keys.currentKeys.map { TrustedKey(publicKey: $0).fingerprint }.joined(separator: ", ")))")
            return 0
        }
        guard let key = arguments[Self.key] else { throw CommandLineError.missingRequired("--key KEYDIR/private (rollout \(action) signs)") }
        let signer = try Ed25519KeyFiles.signer(at: URL(fileURLWithPath: key))
        let publisher = PackageRolloutPublisher(writer: PackageWriter(repository: repository, platform: .native, signer: signer))
        switch action {
        case "start":
            guard let candidate = arguments[Self.candidate] else { throw CommandLineError.missingRequired("--candidate N (rollout start)") }
            let stages = arguments[Self.stages].split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            let rollout = try publisher.start(id: id, candidate: candidate, baseline: arguments[Self.baseline], stages: stages)
            print(describe(rollout))
        case "halt":
            let rollout = try publisher.halt(id: id, reason: arguments[Self.reason] ?? "halted by hand")
            print(describe(rollout))
        default:
            guard arguments[Self.auto] else {
                print(describe(try publisher.advance(id: id, reason: arguments[Self.reason])))
                return 0
            }
            guard let rollout = try publisher.current(id: id), rollout.state == .running else {
                throw HybridError.pkg(.invalidRollout("no rollout of \(id) is running"))
            }
            let files = arguments[Self.files]
            guard !files.isEmpty else { throw CommandLineError.missingRequired("HEALTH.jsonl (rollout advance --auto)") }
            let (events, _) = try HealthCommand.readEvents(files)
            var rule = HealthComparison.Rule()
            rule.minimumLaunches = arguments[Self.minimumLaunches]
            let comparison = HealthComparison(events: events, candidate: "\(id)@\(rollout.candidate.version)",
                                              baseline: "\(id)@\(rollout.baseline.version)", rule: rule)
            print("verdict: \(comparison.verdict.rawValue): \(comparison.reason)")
            switch comparison.verdict {
            case .wait:
                print(describe(rollout))
            case .advance:
                print(describe(try publisher.advance(id: id, reason: comparison.reason)))
            case .halt:
                print(describe(try publisher.halt(id: id, reason: comparison.reason)))
                return 3
            }
        }
        return 0
    }

    static func describe(_ rollout: PackageRollout) -> String {
        let stages = rollout.stages.enumerated().map { index, percent in
            let text = String(format: "%g%%", percent)
            return index == rollout.stage && rollout.state == .running ? "[\(text)]" : text
        }.joined(separator: " → ")
        return "\(rollout.id): \(rollout.state.rawValue), candidate \(rollout.candidate.version) over baseline \(rollout.baseline.version)"
            + " at \(String(format: "%g", rollout.percent)) % (stages \(stages)), document \(rollout.sequence)"
            + (rollout.reason.map { "\n  reason: \($0)" } ?? "")
    }
}
