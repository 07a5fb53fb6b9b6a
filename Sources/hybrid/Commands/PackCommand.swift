import Foundation
import HybridCommandLine
import HybridCore
import HybridCrypto

enum PackCommand: HybridCommand {
    static let directory: CommandArgument<String> = .required("DIR", help: "the directory to pack")
    static let id: CommandOption<String> = .required("--id", "ID", help: "the package's id")
    static let version: CommandOption<Int> = .requiredInt("--version", "N", help: "the version: greater than the repository's latest")
    static let origin: CommandOption<String> = .required("--origin", "URL",
                                                         help: "the origin and path the package serves, ending in '/' (https://m.example.com/app/)")
    static let key: CommandOption<String> = .required("--key", "KEYDIR/private", help: "the private key that signs")
    static let repo: CommandOption<String> = .required("--repo", "REPO", help: "the static repository the version goes to")
    static let entry: CommandOption<String> = .text("--entry", "PATH", default: "index.html",
                                                    help: "the entry document, also the SPA fallback")
    static let spa: CommandOption<Bool> = .flag("--spa", help: "answer navigations to paths the package lacks with the entry")
    static let csp: CommandOption<String?> = .text("--csp", "POLICY", help: "a Content-Security-Policy added to the default (it can only tighten)")
    static let expiresDays: CommandOption<Double> = .double("--expires-days", "N", default: 30, help: "clients refuse the manifest after N days")
    static let patchDepth: CommandOption<Int> = .int("--patch-depth", "N", default: 3, in: 0...Int.max,
                                                     help: "make patches from each of the last N versions (0: none)")
    static let staged: CommandOption<Bool> = .flag("--staged", help: "leave latest.json where it is: the version is for `hybrid rollout start`")

    static var table: CommandTable {
        CommandTable(
            name: "pack", summary: "Pack a directory into a signed, content-addressed package repository",
            discussion: """
                Adds version N of package ID to the static repository REPO (any web server or CDN can
                serve it): blobs named by SHA-256 (zlib-compressed where that pays; unchanged files add
                nothing), packages/ID/N/manifest.json with its detached Ed25519 signature, and the
                signed pointer packages/ID/latest.json. N must be greater than the repository's latest.
                Every file that differs from its content in one of the last --patch-depth versions also
                gets a byte-level patch from that content (zstd with the old file as dictionary, RFC 9842
                dcz framing), listed in the signed manifest; clients holding the old content fetch the patch.
                With --staged the pointer stays on the version it names, for a staged rollout to ship the new
                one (`hybrid rollout start --candidate N`).
                """,
            arguments: [directory], options: [id, version, origin, key, repo, entry, spa, csp, expiresDays, patchDepth, staged])
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let id = arguments[Self.id]
        let version = arguments[Self.version]
        let origin = arguments[Self.origin]
        let key = arguments[Self.key]
        let repo = arguments[Self.repo]
        let entry = arguments[Self.entry]
        let spa = arguments[Self.spa]
        let csp = arguments[Self.csp]
        let days = arguments[Self.expiresDays]
        let depth = arguments[Self.patchDepth]
        let directory = arguments[Self.directory]

        let signer = try Ed25519KeyFiles.signer(at: URL(fileURLWithPath: key))
        let platform = PackagePlatform.native
        if platform.compressor == nil {
            FileHandle.standardError.write(Data("hybrid pack: libz not found; blobs are stored uncompressed\n".utf8))
        }
        if platform.delta == nil, depth > 0 {
            FileHandle.standardError.write(Data("hybrid pack: no delta codec (libzstd) in this build; no patches\n".utf8))
        }
        let writer = PackageWriter(repository: URL(fileURLWithPath: repo), platform: platform, signer: signer)
        var options = PackageWriter.Options(id: id, version: version, origin: origin, entry: entry, spaFallback: spa,
                                            contentSecurityPolicy: csp, lifetime: days * 86_400, patchDepth: depth)
        options.holdsPointer = arguments[Self.staged]
        let bar = TerminalProgress(label: "packing")
        let report: PackageWriter.Report
        do {
            report = try writer.pack(URL(fileURLWithPath: directory), options: options) { progress in
                bar.show(done: progress.bytesDone, total: progress.bytesTotal, detail: "\(progress.filesDone)/\(progress.filesTotal) files")
            }
        } catch HybridError.package(let reason) where reason.code == "key_expired" {
            // The writer refuses it; the CLI adds the way out.
            FileHandle.standardError.write(Data(("hybrid pack: \(reason); clients refuse what it signs. Rotate from it to a new key "
                + "with `hybrid key rotate --key \(key)` (clients follow a rotation an expired key signed) and pack with that\n").utf8))
            return 2
        }
        bar.finish()
        let manifest = report.manifest
        let bytes = manifest.files.reduce(0) { $0 + $1.size }
        let stored = manifest.files.reduce(0) { $0 + $1.storedSize }
        print("packed \(manifest.id) version \(manifest.version): \(manifest.files.count) files, \(TerminalProgress.bytes(Int64(bytes)))"
              + " (\(TerminalProgress.bytes(Int64(stored))) stored, \(report.compressedFiles) compressed)")
        print("blobs: \(report.blobsAdded) added (\(TerminalProgress.bytes(report.bytesAdded))), \(report.blobsReused) already in the repository")
        let patched = manifest.files.filter { $0.patches != nil }
        if !patched.isEmpty || report.patchesAdded > 0 {
            print("patches: \(report.patchesAdded) added (\(TerminalProgress.bytes(report.patchBytesAdded))), \(report.patchesReused) reused, for \(patched.count) file(s)")
            for file in patched.prefix(10) {
                let sizes = (file.patches ?? []).map { TerminalProgress.bytes(Int64($0.size)) }.joined(separator: ", ")
                print("  \(file.path): \(sizes) (full blob \(TerminalProgress.bytes(Int64(file.storedSize))))")
            }
        }
        print("manifest: \(report.manifestPath), expires \(ISO8601DateFormatter().string(from: manifest.expires))")
        return 0
    }
}
