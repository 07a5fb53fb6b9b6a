import Foundation

/// The earlier versions a pack makes patches against, and how it finds a file's counterpart in them.
package struct PackagePatchBases {
    /// One earlier version's files, indexed by path and by hashed-name stem.
    package struct Version {
        package let manifest: PackageManifest
        let byStem: [String: [PackageFile]]

        package init(_ manifest: PackageManifest) {
            self.manifest = manifest
            byStem = Dictionary(grouping: manifest.files) { PackagePatchBases.stem($0.path.value) }
        }

        /// The file at the same path, or else the only file whose name differs from `path` just by
        /// a content hash (`app.3f2a1b9c.js` for `app.77d0e4aa.js`, as webpack and vite name bundles).
        func counterpart(of path: PackagePath) -> PackageFile? {
            if let file = manifest.file(at: path) { return file }
            guard let candidates = byStem[PackagePatchBases.stem(path.value)], candidates.count == 1 else { return nil }
            return candidates[0]
        }
    }

    /// The last `depth` published versions below the one being packed, newest first.
    package let versions: [Version]

    /// Reads the manifests of the `depth` highest versions of `id` below `version` in `repository`.
    /// Unreadable ones are skipped: they only cost the patches they would have had.
    package init(repository: URL, id: String, below version: Int, depth: Int) {
        let directory = repository.appendingPathComponent("packages").appendingPathComponent(id)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let earlier = names.compactMap(Int.init).filter { $0 < version }.sorted(by: >).prefix(max(0, depth))
        versions = earlier.compactMap { old in
            let url = repository.appendingPathComponent(PackageRepositoryLayout.manifest(id: id, version: old))
            guard let data = FileManager.default.contents(atPath: url.path), let manifest = try? PackageManifest.decode(data) else { return nil }
            return Version(manifest)
        }
    }

    /// The distinct earlier contents of the file at `path` that differ from `sha256`.
    func bases(for path: PackagePath, sha256: String) -> [PackageFile] {
        var seen = Set<String>()
        return versions.compactMap { $0.counterpart(of: path) }.filter { $0.sha256 != sha256 && seen.insert($0.sha256).inserted }
    }

    /// A file name with content-hash-like parts replaced by `*`: the directory, and every run of
    /// letters and digits of 6 or more characters that holds a digit and is hex or 8+ long.
    package static func stem(_ path: String) -> String {
        var out = "", token = ""
        func flush() {
            let isHash = token.count >= 6 && token.contains(where: \.isNumber)
                && (token.count >= 8 || token.allSatisfy(\.isHexDigit))
            out += isHash ? "*" : token
            token = ""
        }
        for character in path {
            if character.isASCII, character.isLetter || character.isNumber {
                token.append(character)
            } else {
                flush()
                out.append(character)
            }
        }
        flush()
        return out
    }
}

extension PackageWriter {
    /// Makes and stores a patch from each earlier content of `file` (``PackagePatchBases``) to `data`,
    /// keeping only those smaller than the full blob.
    /// - Returns: the patches, smallest first, or `nil` when there are none.
    package func patches(for file: PackageFile, data: Data, bases: PackagePatchBases, report: inout Report) throws -> [PackagePatch]? {
        guard let codec = platform.delta else { return nil }
        var patches: [PackagePatch] = []
        for base in bases.bases(for: file.path, sha256: file.sha256) {
            guard let stored = FileManager.default.contents(atPath: repository.appendingPathComponent(PackageRepositoryLayout.blob(base.blob)).path),
                  let old = try? platform.decode(stored, encoding: base.encoding, expectedSize: base.size),
                  platform.digests.sha256Hex(old) == base.sha256 else { continue }   // a damaged old blob: no patch from it
            guard let patch = DeltaPatch.make(from: old, to: data, codec: codec, digests: platform.digests),
                  patch.count < file.storedSize else { continue }
            let name = platform.digests.sha256Hex(patch)
            let path = PackageRepositoryLayout.blob(name)
            if FileManager.default.fileExists(atPath: repository.appendingPathComponent(path).path) {
                report.patchesReused += 1
            } else {
                try write(patch, to: path)
                report.patchesAdded += 1
                report.patchBytesAdded += Int64(patch.count)
            }
            patches.append(PackagePatch(base: base.sha256, blob: name, size: patch.count))
        }
        return patches.isEmpty ? nil : patches.sorted { ($0.size, $0.base) < ($1.size, $1.base) }
    }
}
