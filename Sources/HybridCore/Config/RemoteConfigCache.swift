import Foundation
import HybridBase

/// The last good config on disk, so an app that starts offline still gets its rules.
///
/// One file holds the document's exact bytes and its signature together (two files could be
/// torn apart by a crash between two renames); it is written to a temporary file, synced and
/// renamed over the old one, so a reader sees the old or the new document, never half of one.
/// The signature is checked again on load: the cache is not trusted more than the network.
public struct RemoteConfigCache: Sendable {
    /// The directory the cache lives in (created on first write).
    public let directory: URL

    /// A cache in `directory`.
    public init(directory: URL) { self.directory = directory }

    /// The cache file.
    public var file: URL { directory.appendingPathComponent("remote-config.json") }

    private struct Entry: Codable {
        var document: Data
        var signature: Data
    }

    /// The cached document's bytes and signature-file bytes, or `nil` when there is none or it is unreadable.
    public func load() -> (document: Data, signature: Data)? {
        guard let data = FileManager.default.contents(atPath: file.path),
              let entry = try? JSONDecoder().decode(Entry.self, from: data) else { return nil }
        return (entry.document, entry.signature)
    }

    /// Replaces the cached document atomically.
    /// - Throws: ``ConfigFailure/cacheWriteFailed(path:message:)``.
    public func store(document: Data, signature: Data) throws {
        let fm = FileManager.default
        let temporary = directory.appendingPathComponent(".remote-config.\(UUID().uuidString).tmp")
        do {
            try fm.createDirectory(at: directory, withIntermediateDirectories: true)
            let bytes = try JSONEncoder().encode(Entry(document: document, signature: signature))
            guard fm.createFile(atPath: temporary.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: bytes)
            // Without the sync, a crash after the rename could leave an empty file in its place.
            try handle.synchronize()
            guard rename(temporary.path, file.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
        } catch {
            try? fm.removeItem(at: temporary)
            throw HybridError.cfg(.cacheWriteFailed(path: file.path, message: error.localizedDescription))
        }
    }

    /// A random install id kept beside the cache: created once, then the same on every start,
    /// so rollout buckets stay put for this install.
    /// - Throws: ``ConfigFailure/cacheWriteFailed(path:message:)`` when it cannot be saved.
    public func installID() throws -> String {
        let url = directory.appendingPathComponent("install-id")
        if let data = FileManager.default.contents(atPath: url.path) {
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty { return text }
        }
        let id = UUID().uuidString.lowercased()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data((id + "\n").utf8).write(to: url, options: .atomic)
        } catch {
            throw HybridError.cfg(.cacheWriteFailed(path: url.path, message: error.localizedDescription))
        }
        return id
    }
}
