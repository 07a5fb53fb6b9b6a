import Foundation
import HybridCommandLine
import HybridCore
import HybridCrypto

enum PackCommand: HybridCommand {
    static let name = "pack"
    static let summary = "Pack a directory into a signed, content-addressed package repository"
    static let usage = """
        USAGE: hybrid pack DIR --id ID --version N --origin URL --key KEYDIR/private --repo REPO
                           [--entry index.html] [--spa] [--csp POLICY] [--expires-days 30] [--patch-depth 3]

        Adds version N of package ID to the static repository REPO (any web server or CDN can
        serve it): blobs named by SHA-256 (zlib-compressed where that pays; unchanged files add
        nothing), packages/ID/N/manifest.json with its detached Ed25519 signature, and the
        signed pointer packages/ID/latest.json. N must be greater than the repository's latest.
        Every file that differs from its content in one of the last --patch-depth versions also
        gets a byte-level patch from that content (zstd with the old file as dictionary, RFC 9842
        dcz framing), listed in the signed manifest; clients holding the old content fetch the patch.

        OPTIONS:
          --origin URL        the origin and path the package serves, ending in '/'
                              (https://m.example.com/app/)
          --entry PATH        the entry document, also the SPA fallback (default index.html)
          --spa               answer navigations to paths the package lacks with the entry
          --csp POLICY        a Content-Security-Policy added to the default (it can only tighten)
          --expires-days N    clients refuse the manifest after N days (default 30)
          --patch-depth N     make patches from each of the last N versions (default 3; 0: none)
        """

    static func run(_ arguments: Arguments) throws -> Int32 {
        var arguments = arguments
        let id = try arguments.required("--id")
        guard let version = try arguments.int("--version") else { throw Arguments.Error.missingRequired("--version") }
        let origin = try arguments.required("--origin")
        let key = try arguments.required("--key")
        let repo = try arguments.required("--repo")
        let entry = try arguments.option("--entry") ?? "index.html"
        let spa = arguments.flag("--spa")
        let csp = try arguments.option("--csp")
        let days = try arguments.double("--expires-days") ?? 30
        let depth = try arguments.int("--patch-depth") ?? 3
        guard depth >= 0 else { throw Arguments.Error.invalid(option: "--patch-depth", value: "\(depth)", expected: "0 or more") }
        let positionals = try arguments.finish(maxPositionals: 1)
        guard let directory = positionals.first else { throw Arguments.Error.missingRequired("DIR") }

        let signer = try Ed25519KeyFiles.signer(at: URL(fileURLWithPath: key))
        let platform = PackagePlatform.native
        if platform.compressor == nil {
            FileHandle.standardError.write(Data("hybrid pack: libz not found; blobs are stored uncompressed\n".utf8))
        }
        if platform.delta == nil, depth > 0 {
            FileHandle.standardError.write(Data("hybrid pack: no delta codec (libzstd) in this build; no patches\n".utf8))
        }
        let writer = PackageWriter(repository: URL(fileURLWithPath: repo), platform: platform, signer: signer)
        let options = PackageWriter.Options(id: id, version: version, origin: origin, entry: entry, spaFallback: spa,
                                            contentSecurityPolicy: csp, lifetime: days * 86_400, patchDepth: depth)
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
