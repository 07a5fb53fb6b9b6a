import Foundation
import HybridBase

extension PackageUpdater {
    /// The largest manifest the updater inflates from a compressed copy.
    static let manifestLimit = 16 << 20

    /// The manifest's exact signed bytes: inflated from the compressed copy the pointer names when
    /// this platform has its compressor, else (or when the copy is missing, corrupt or does not hash
    /// to the pointer's SHA-256) the plain `manifest.json`.
    func fetchManifest(_ pointer: PackagePointer, downloader: PackageDownloader, report: inout Report) async throws -> Data {
        let platform = installer.platform
        if let encoding = pointer.manifestEncoding, let size = pointer.manifestSize, size <= Self.manifestLimit,
           let compressor = platform.compressor, compressor.encoding == encoding {
            let path = PackageRepositoryLayout.compressedManifest(id: pointer.id, version: pointer.version, encoding: encoding)
            if let packed = try? await downloader.document(url(path), limit: Self.manifestLimit) {
                report.documentBytes += Int64(packed.count)
                if let data = try? compressor.decompress(packed, expectedSize: size), platform.digests.sha256Hex(data) == pointer.manifestSHA256 {
                    return data
                }
            }
        }
        guard let data = try await downloader.document(url(pointer.manifest)) else {
            throw HybridError.pkg(.httpStatus(url: url(pointer.manifest).absoluteString, status: 404))
        }
        report.documentBytes += Int64(data.count)
        return data
    }

    /// The patches of `file` this store can use (a codec, the base held, smaller than the full blob), smallest first.
    func usablePatches(of file: PackageFile, store: PackageStore) -> [PackagePatch] {
        guard installer.platform.delta != nil else { return [] }
        return (file.patches ?? []).filter { $0.size < file.storedSize && store.hasBlob($0.base) }.sorted { $0.size < $1.size }
    }

    /// The bytes the cheapest way to get `file` should fetch.
    func cheapestSize(of file: PackageFile, store: PackageStore) -> Int {
        usablePatches(of: file, store: store).first?.size ?? file.storedSize
    }

    /// Tries to make `file` from a patch against a base the store holds, smallest patch first,
    /// while patches cost less than the full blob.
    ///
    /// The patch is untrusted: it must have the manifest's size and SHA-256, name the base it is
    /// applied to, and decode to exactly the manifest's size and SHA-256; only then is the result
    /// written, atomically, as the file's blob. Nothing is left behind when any step fails.
    /// - Returns: the outcome when a patch made the file (`nil` to fall back to the full blob), the
    ///   bytes fetched either way, and why each patch tried failed.
    func fetchByPatch(_ file: PackageFile, downloader: PackageDownloader, store: PackageStore,
                      meter: ProgressMeter) async -> (outcome: PackageDownloader.Outcome?, spent: Int, fallbacks: [String]) {
        guard let codec = installer.platform.delta else { return (nil, 0, []) }
        let digests = installer.platform.digests
        var spent = 0
        var fallbacks: [String] = []
        for patch in usablePatches(of: file, store: store) {
            guard spent + patch.size < file.storedSize else { break }
            do {
                guard let data = try await downloader.document(url(PackageRepositoryLayout.blob(patch.blob)), limit: patch.size) else {
                    throw HybridError.pkg(.missingBlob(patch.blob))
                }
                spent += data.count
                meter.received(data.count)
                guard data.count == patch.size, digests.sha256Hex(data) == patch.blob else {
                    throw HybridError.pkg(.badPatch(base: patch.base, reason: "\(data.count) bytes that do not match the manifest's size and SHA-256"))
                }
                let base: Data
                do { base = try Data(contentsOf: store.blobURL(patch.base), options: .mappedIfSafe) } catch {
                    throw HybridError.pkg(.missingBlob(patch.base))
                }
                let result = try DeltaPatch.apply(data, to: base, baseSHA256: patch.base, expectedSize: file.size,
                                                  expectedSHA256: file.sha256, codec: codec, digests: digests)
                if store.hasBlob(file.sha256) { return (PackageDownloader.Outcome(byAnotherUpdater: true), spent, fallbacks) }
                try store.writeBlob(result, sha256: file.sha256)
                return (PackageDownloader.Outcome(way: .patch, patchBase: patch.base, fallbacks: fallbacks), spent, fallbacks)
            } catch {
                let code = (error as? HybridError)?.code ?? "error"
                fallbacks.append("\(code): \(error)")
            }
        }
        return (nil, spent, fallbacks)
    }
}

extension PackageUpdater {
    /// The most rotations one update fetches (a pointer announcing more is refused).
    static let rotationLimit = 64

    /// Brings the installer's ``TrustedKeySet`` up to the key sequence the (not yet verified)
    /// pointer announces, fetching and applying `keys/rotation-N.json` in order. Each rotation is
    /// verified against the chain, so a lying announcement costs requests, never trust.
    /// - Throws: ``PackageFailure/badRotation(_:)`` for a missing or refused statement.
    func catchUpKeyRotations(announcedIn pointerData: Data, downloader: PackageDownloader, report: inout Report) async throws {
        struct Announcement: Decodable { var keySequence: Int? }
        guard let keys = installer.verifier as? TrustedKeySet,
              let announced = (try? JSONDecoder().decode(Announcement.self, from: pointerData))?.keySequence, announced > keys.sequence else { return }
        guard announced - keys.sequence <= Self.rotationLimit else {
            throw HybridError.pkg(.badRotation("the pointer announces key sequence \(announced), \(announced - keys.sequence) rotations ahead"))
        }
        for sequence in (keys.sequence + 1)...announced {
            let path = KeyRotation.path(sequence)
            guard let statement = try await downloader.document(url(path), limit: 64 << 10),
                  let signature = try await downloader.document(url(path + PackageRepositoryLayout.signatureSuffix), limit: 4096),
                  let successor = try await downloader.document(url(path + KeyRotation.successorSignatureSuffix), limit: 4096) else {
                throw HybridError.pkg(.badRotation("\(path) or one of its signatures is missing from the repository"))
            }
            report.documentBytes += Int64(statement.count + signature.count + successor.count)
            try keys.apply(KeyRotation.Signed(statement: statement, signature: signature, successorSignature: successor))
        }
    }
}
