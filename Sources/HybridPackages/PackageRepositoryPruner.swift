import Foundation
import HybridBase

/// Removes from a package repository what no retained version needs (`hybrid repo prune`): the
/// manifests of versions older than the last ``keep`` of each package, and every blob and patch
/// no retained manifest lists.
///
/// A client on a pruned version still updates: the latest manifest's full blobs are retained, and
/// the updater falls back to them when it holds no patch base. Patches a retained manifest lists
/// are kept even when their base's version is gone, because clients still on that version can use
/// them. Keep at least the pack's patch depth, so the next pack finds its bases.
public struct PackageRepositoryPruner: Sendable {
    /// What a prune removed (or, dry, would remove).
    public struct Report: Sendable, Equatable {
        /// The versions kept, per package id.
        public var retained: [String: [Int]] = [:]
        /// The versions whose manifests were removed, per package id.
        public var removedVersions: [String: [Int]] = [:]
        /// Blobs and patches removed.
        public var removedBlobs = 0
        /// Bytes they took.
        public var removedBytes: Int64 = 0
    }

    /// The repository's root directory.
    public let repository: URL
    /// How many of each package's newest versions to keep (at least 1).
    public let keep: Int

    /// A pruner of the repository at `repository` keeping the newest `keep` versions of each package.
    public init(repository: URL, keep: Int) {
        self.repository = repository
        self.keep = max(1, keep)
    }

    /// Prunes; with `dryRun`, only reports what it would remove.
    /// - Throws: ``PackageFailure/invalidManifest(_:)`` when a retained manifest cannot be read
    ///   (then nothing is removed: what is garbage cannot be told), or a removal failure.
    public func run(dryRun: Bool = false) throws -> Report {
        let fm = FileManager.default
        var report = Report()
        var referenced = Set<String>()
        var doomed: [URL] = []
        let packages = repository.appendingPathComponent("packages")
        for id in ((try? fm.contentsOfDirectory(atPath: packages.path)) ?? []).filter(PackageManifest.isValidID).sorted() {
            let versions = ((try? fm.contentsOfDirectory(atPath: packages.appendingPathComponent(id).path)) ?? []).compactMap(Int.init).sorted(by: >)
            let retained = Array(versions.prefix(keep)), removed = Array(versions.dropFirst(keep))
            for version in retained {
                let path = PackageRepositoryLayout.manifest(id: id, version: version)
                guard let data = fm.contents(atPath: repository.appendingPathComponent(path).path) else {
                    throw HybridError.pkg(.invalidManifest("\(path) is missing; nothing pruned"))
                }
                let manifest = try PackageManifest.decode(data)
                for file in manifest.files {
                    referenced.insert(file.blob)
                    for patch in file.patches ?? [] { referenced.insert(patch.blob) }
                }
            }
            report.retained[id] = retained.sorted()
            if !removed.isEmpty { report.removedVersions[id] = removed.sorted() }
            doomed += removed.map { packages.appendingPathComponent(id).appendingPathComponent(String($0)) }
        }
        let blobs = repository.appendingPathComponent("blobs")
        for shard in (try? fm.contentsOfDirectory(atPath: blobs.path)) ?? [] {
            let shardURL = blobs.appendingPathComponent(shard)
            for name in (try? fm.contentsOfDirectory(atPath: shardURL.path)) ?? [] where !referenced.contains(name) {
                let url = shardURL.appendingPathComponent(name)
                report.removedBlobs += 1
                report.removedBytes += ((try? fm.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value ?? 0
                doomed.append(url)
            }
        }
        guard !dryRun else { return report }
        for url in doomed {
            do { try fm.removeItem(at: url) } catch {
                throw HybridError.pkg(.writeFailed(path: url.path, message: error.localizedDescription))
            }
        }
        return report
    }
}
