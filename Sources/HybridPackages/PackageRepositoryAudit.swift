import Foundation
import HybridBase

/// Checks a package repository on disk: every pointer, manifest (and its compressed copy),
/// signature, blob and patch (`hybrid verify REPO --key PUB`). A patch is applied to its base,
/// when the platform has a delta codec, and must give the file the manifest describes.
public struct PackageRepositoryAudit: Sendable {
    /// One problem found, with the repository-relative path it concerns.
    public struct Finding: Sendable, CustomStringConvertible {
        /// The repository-relative path of the pointer, manifest or blob at fault.
        public var path: String
        /// What is wrong with it.
        public var error: HybridError
        /// `path: [code] message`, one line for the audit's output.
        public var description: String { "\(path): [\(error.code)] \(error)" }
    }

    /// What an audit saw.
    public struct Report: Sendable {
        /// The package ids found (in `index.json` and under `packages/`), sorted.
        public var packages: [String] = []
        /// Manifests that verified and decoded.
        public var manifestsChecked = 0
        /// Blobs read and hashed.
        public var blobsChecked = 0
        /// Patches read, hashed and (with a delta codec) applied.
        public var patchesChecked = 0
        /// Every problem found, in the order met.
        public var findings: [Finding] = []
        /// No problem was found.
        public var isClean: Bool { findings.isEmpty }
    }

    /// The repository's root directory.
    public let repository: URL
    /// The digests and decompressors used to check blobs.
    public let platform: PackagePlatform
    /// Checks the signatures of pointers and manifests (the publisher's public key).
    public let verifier: any SignatureVerifier

    /// An audit of the repository at `repository`, checking signatures with `verifier`.
    public init(repository: URL, platform: PackagePlatform, verifier: any SignatureVerifier) {
        self.repository = repository
        self.platform = platform
        self.verifier = verifier
    }

    /// Audits everything; never throws: each problem becomes a ``Finding``.
    /// - Parameter progress: called with (blobs checked, blobs total) while blobs are hashed.
    public func run(now: Date = Date(), progress: ((Int, Int) -> Void)? = nil) -> Report {
        var report = Report()
        var blobs: [String: PackageFile] = [:]
        var patches: [String: (patch: PackagePatch, target: PackageFile)] = [:]
        report.packages = packageIDs()
        for id in report.packages {
            let pointerPath = PackageRepositoryLayout.pointer(id: id)
            do {
                let data = try read(pointerPath)
                try DetachedSignature.verify(try? read(pointerPath + PackageRepositoryLayout.signatureSuffix), of: data, what: "pointer", with: verifier)
                let pointer = try PackagePointer.decode(data, expectedID: id)
                let manifestData = try read(pointer.manifest)
                guard platform.digests.sha256Hex(manifestData) == pointer.manifestSHA256 else {
                    throw HybridError.pkg(.invalidManifest("pointer's manifest SHA-256 does not match \(pointer.manifest)"))
                }
                let latest = try PackageManifest.decode(manifestData)
                if latest.expires <= now {
                    throw HybridError.pkg(.expired(id: id, version: latest.version, expires: latest.expires))
                }
            } catch {
                report.findings.append(Finding(path: pointerPath, error: Self.hybrid(error)))
            }
            for version in versions(of: id) {
                let path = PackageRepositoryLayout.manifest(id: id, version: version)
                do {
                    let data = try read(path)
                    try DetachedSignature.verify(try? read(path + PackageRepositoryLayout.signatureSuffix), of: data, what: "manifest", with: verifier)
                    let manifest = try PackageManifest.decode(data)
                    guard manifest.id == id, manifest.version == version else {
                        throw HybridError.pkg(.invalidManifest("names \(manifest.id)@\(manifest.version), stored as \(id)@\(version)"))
                    }
                    try checkCompressedCopy(of: data, id: id, version: version)
                    report.manifestsChecked += 1
                    for file in manifest.files {
                        blobs[file.blob] = file
                        for patch in file.patches ?? [] { patches[patch.blob] = (patch, file) }
                    }
                } catch {
                    report.findings.append(Finding(path: path, error: Self.hybrid(error)))
                }
            }
        }
        let ordered = blobs.keys.sorted()
        for (index, blob) in ordered.enumerated() {
            let file = blobs[blob]!
            let path = PackageRepositoryLayout.blob(blob)
            do {
                try check(file, at: path)
            } catch {
                report.findings.append(Finding(path: path, error: Self.hybrid(error)))
            }
            report.blobsChecked += 1
            progress?(index + 1, ordered.count)
        }
        let bases = Dictionary(blobs.values.map { ($0.sha256, $0) }, uniquingKeysWith: { first, _ in first })
        for (blob, entry) in patches.sorted(by: { $0.key < $1.key }) {
            let path = PackageRepositoryLayout.blob(blob)
            do {
                try check(entry.patch, of: entry.target, at: path, base: bases[entry.patch.base])
            } catch {
                report.findings.append(Finding(path: path, error: Self.hybrid(error)))
            }
            report.patchesChecked += 1
        }
        return report
    }

    /// The compressed copy, when there is one, must inflate to exactly the signed manifest.
    private func checkCompressedCopy(of manifest: Data, id: String, version: Int) throws {
        guard let compressor = platform.compressor else { return }
        let path = PackageRepositoryLayout.compressedManifest(id: id, version: version, encoding: compressor.encoding)
        guard let packed = FileManager.default.contents(atPath: repository.appendingPathComponent(path).path) else { return }
        guard (try? compressor.decompress(packed, expectedSize: manifest.count)) == manifest else {
            throw HybridError.pkg(.invalidManifest("\(path) does not inflate to the signed manifest"))
        }
    }

    private func check(_ patch: PackagePatch, of target: PackageFile, at path: String, base: PackageFile?) throws {
        guard let data = FileManager.default.contents(atPath: repository.appendingPathComponent(path).path) else {
            throw HybridError.pkg(.missingBlob(patch.blob))
        }
        guard data.count == patch.size, platform.digests.sha256Hex(data) == patch.blob else {
            throw HybridError.pkg(.badPatch(base: patch.base, reason: "stored bytes do not match the manifest's size and SHA-256"))
        }
        // A base no manifest here lists any more (pruned) is fine: clients that hold it can still use the patch.
        guard let codec = platform.delta, let base, let stored = FileManager.default.contents(atPath: repository.appendingPathComponent(PackageRepositoryLayout.blob(base.blob)).path) else { return }
        let contents = try platform.decode(stored, encoding: base.encoding, expectedSize: base.size)
        _ = try DeltaPatch.apply(data, to: contents, baseSHA256: patch.base, expectedSize: target.size, expectedSHA256: target.sha256,
                                 codec: codec, digests: platform.digests)
    }

    private func check(_ file: PackageFile, at path: String) throws {
        guard let stored = FileManager.default.contents(atPath: repository.appendingPathComponent(path).path) else {
            throw HybridError.pkg(.missingBlob(file.blob))
        }
        guard stored.count == file.storedSize else {
            throw HybridError.pkg(.corruptBlob(sha256: file.blob, reason: "size is \(stored.count), expected \(file.storedSize)"))
        }
        guard platform.digests.sha256Hex(stored) == file.blob else {
            throw HybridError.pkg(.corruptBlob(sha256: file.blob, reason: "SHA-256 mismatch"))
        }
        let contents = try platform.decode(stored, encoding: file.encoding, expectedSize: file.size)
        guard platform.digests.sha256Hex(contents) == file.sha256 else {
            throw HybridError.pkg(.corruptBlob(sha256: file.blob, reason: "decoded contents' SHA-256 mismatch"))
        }
    }

    private func packageIDs() -> [String] {
        var ids = Set<String>()
        if let data = try? read(PackageRepositoryLayout.index),
           let index = try? JSONDecoder().decode(PackageRepositoryLayout.Index.self, from: data) {
            ids.formUnion(index.packages)
        }
        let directory = repository.appendingPathComponent("packages").path
        ids.formUnion((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        return ids.filter(PackageManifest.isValidID).sorted()
    }

    private func versions(of id: String) -> [Int] {
        let directory = repository.appendingPathComponent("packages/\(id)").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).compactMap { Int($0) }.sorted()
    }

    private func read(_ path: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: repository.appendingPathComponent(path).path) else {
            throw HybridError.pkg(path.hasSuffix(".json") ? .invalidManifest("\(path) is missing") : .missingBlob(path))
        }
        return data
    }

    package static func hybrid(_ error: any Error) -> HybridError {
        (error as? HybridError) ?? .pkg(.internalError("\(error)"))
    }
}
