import Foundation
import HybridBase

/// One file of the directory being packed.
struct PackageSource: Sendable {
    package var url: URL
    package var path: PackagePath
    package var size: Int64
}

extension PackageWriter {
    /// Names the publisher's tools leave behind that never belong in a package.
    static let ignoredNames: Set<String> = [".DS_Store", "Thumbs.db", ".git", ".svn", ".hg"]

    /// Lists the regular files under `directory` as package paths, sorted.
    ///
    /// Refuses symbolic links (they may point outside the directory), names that are not valid
    /// ``PackagePath``s, and two names that collide after Unicode and case normalisation.
    /// - Throws: ``PackageFailure/invalidPath(path:reason:)`` or ``PackageFailure/pathCollision(_:_:)``.
    static func listFiles(in directory: URL) throws -> [PackageSource] {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw HybridError.pkg(.invalidPath(path: directory.path, reason: "not a directory"))
        }
        var sources: [PackageSource] = []
        var seen: [String: String] = [:]
        try walk(directory, relative: "", into: &sources, seen: &seen)
        return sources.sorted { $0.path < $1.path }
    }

    private static func walk(_ url: URL, relative: String, into sources: inout [PackageSource], seen: inout [String: String]) throws {
        let fm = FileManager.default
        let names: [String]
        do { names = try fm.contentsOfDirectory(atPath: url.path) } catch {
            throw HybridError.pkg(.invalidPath(path: relative.isEmpty ? url.path : relative, reason: "unreadable directory"))
        }
        for name in names.sorted() where !ignoredNames.contains(name) {
            let child = url.appendingPathComponent(name)
            let relativeName = relative.isEmpty ? name : relative + "/" + name
            let attributes = try fm.attributesOfItem(atPath: child.path)
            let type = attributes[.type] as? FileAttributeType
            switch type {
            case .typeDirectory?:
                try walk(child, relative: relativeName, into: &sources, seen: &seen)
            case .typeRegular?:
                // Validate the raw name: normalising `a/./b` silently would hide what is on disk.
                let path = try PackagePath(relativeName)
                if path.value != relativeName.precomposedStringWithCanonicalMapping {
                    throw HybridError.pkg(.invalidPath(path: relativeName, reason: "not in normal form"))
                }
                if let other = seen[path.collisionKey] {
                    throw HybridError.pkg(.pathCollision(other, path.value))
                }
                seen[path.collisionKey] = path.value
                let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
                sources.append(PackageSource(url: child, path: path, size: size))
            case .typeSymbolicLink?:
                throw HybridError.pkg(.invalidPath(path: relativeName, reason: "symbolic link (could point outside the package)"))
            default:
                throw HybridError.pkg(.invalidPath(path: relativeName, reason: "not a regular file"))
            }
        }
    }
}
