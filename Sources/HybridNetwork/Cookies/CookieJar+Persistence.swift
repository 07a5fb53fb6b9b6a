import Foundation
import HybridBase

/// Persistence: persistent cookies (those with an expiry) survive a restart; session cookies,
/// by definition, do not. The file is JSON, written atomically after every change.
extension CookieJar {
    private struct Archive: Codable {
        var version: Int
        var cookies: [Entry]
    }

    /// A jar that loads `file` (when it exists) and writes every change through to it.
    /// - Throws: `HybridError.network(.cookiePersistence)` when the file exists but cannot be read.
    public convenience init(persistingTo file: URL, policy: Policy = Policy(),
                            clock: @escaping @Sendable () -> Date = { Date() }) throws {
        self.init(policy: policy, fileURL: file, clock: clock)
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            let archive = try decoder.decode(Archive.self, from: Data(contentsOf: file))
            guard archive.version == 1 else {
                throw HybridError.network(.cookiePersistence("unknown version \(archive.version) in \(file.path)"))
            }
            let now = clock()
            lock.withLock {
                for entry in archive.cookies.sorted(by: { $0.sequence < $1.sequence }) where !entry.cookie.isExpired(at: now) {
                    entries[entry.cookie.identity] = Entry(cookie: entry.cookie, creation: entry.creation, sequence: nextSequence)
                    nextSequence += 1
                }
            }
        } catch let error as HybridError {
            throw error
        } catch {
            throw HybridError.network(.cookiePersistence("\(file.path): \(error)"))
        }
    }

    /// Writes the persistent, unexpired cookies to ``fileURL`` atomically (a reader never sees
    /// half a file). Saves serialize, and each writes the state at the time it runs, so the
    /// last write always holds the newest state.
    /// - Throws: `HybridError.network(.cookiePersistence)` when the file cannot be written.
    public func save() throws {
        guard let fileURL else { return }
        try saveLock.withLock {
            let now = clock()
            let snapshot = lock.withLock {
                entries.values.filter { $0.cookie.expires != nil && !$0.cookie.isExpired(at: now) }
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .secondsSince1970
            do {
                let archive = Archive(version: 1, cookies: snapshot.sorted { $0.sequence < $1.sequence })
                try FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
                try encoder.encode(archive).write(to: fileURL, options: .atomic)
            } catch {
                throw HybridError.network(.cookiePersistence("\(fileURL.path): \(error)"))
            }
        }
    }
}
