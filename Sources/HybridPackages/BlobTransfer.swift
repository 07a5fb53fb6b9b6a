import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridBase
import HybridHTTP

/// One blob download into a partial file, streamed through SHA-256 and a size check, resuming
/// what an earlier attempt left with an HTTP `Range` request.
///
/// An ``HTTPStreamSink``: its callbacks arrive one at a time on the stream's thread, and the
/// state below is only touched there or before and after the stream runs.
final class BlobTransfer: HTTPStreamSink, @unchecked Sendable {
    package let url: URL
    package let file: PackageFile
    package let partial: URL
    private let store: PackageStore
    private let onBytes: @Sendable (Int) -> Void
    private var handle: FileHandle?
    private var digest: any Digest
    private var received = 0
    /// Bytes already on disk when the transfer started (what the Range request skips).
    package private(set) var resumedFrom = 0
    private let digests: any DigestFactory

    package init(url: URL, file: PackageFile, store: PackageStore, digests: any DigestFactory, onBytes: @escaping @Sendable (Int) -> Void) {
        self.url = url
        self.file = file
        self.partial = store.partialURL(file.blob)
        self.store = store
        self.onBytes = onBytes
        self.digests = digests
        self.digest = digests.makeSHA256()
    }

    /// Opens (or creates) the partial file, locks it against other updaters of this store, and
    /// hashes what it already holds. Returns the request to send (with `Range` when resuming).
    package func prepare() async throws -> URLRequest? {
        try store.createDirectory(partial.deletingLastPathComponent())
        var attempts = 0
        while true {
            if store.hasBlob(file.sha256) { return nil }
            // Created if missing, never replaced: two updaters racing here open the same inode, so
            // the lock below makes one wait. (Checking for the file and then creating it let both
            // create it, the second replacing the first's, and both downloaded the blob.)
            attempts += 1
            let fd = open(partial.path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                guard attempts < 50 else {
                    throw HybridError.pkg(.writeFailed(path: partial.path, message: String(cString: strerror(errno))))
                }
                continue
            }
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            // Another updater on this store is fetching the same blob: wait for it, then see.
            while flock(handle.fileDescriptor, LOCK_EX | LOCK_NB) != 0 {
                do { try await Task.sleep(nanoseconds: 20_000_000) } catch {
                    try? handle.close()
                    throw error
                }
            }
            if store.hasBlob(file.sha256) {
                // Another updater finished it; nobody needs the partial any more.
                try? FileManager.default.removeItem(at: partial)
                try? handle.close()
                return nil
            }
            // The lock is on an inode: if the winner renamed or removed the file meanwhile, start over.
            var held = stat(), current = stat()
            guard fstat(handle.fileDescriptor, &held) == 0, stat(partial.path, &current) == 0, held.st_ino == current.st_ino else {
                try? handle.close()
                continue
            }
            self.handle = handle
            break
        }
        guard let handle else { return nil }
        digest = digests.makeSHA256()
        var size = 0
        do {
            while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                size += chunk.count
                digest.update(chunk)
            }
            if size > file.storedSize {
                try handle.truncate(atOffset: 0)
                digest = digests.makeSHA256()
                size = 0
            }
        } catch {
            try? handle.close()
            self.handle = nil
            throw HybridError.pkg(.writeFailed(path: partial.path, message: "\(error)"))
        }
        received = size
        resumedFrom = size
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 60)
        if size > 0 { request.setValue("bytes=\(size)-", forHTTPHeaderField: "Range") }
        if size == file.storedSize && size > 0 {
            // Everything is already here (a crash after the download): verify without a request.
            return nil
        }
        return request
    }

    /// Finishes a transfer that needed no request (all bytes present): checks the digest.
    func finishWithoutRequest() throws {
        try complete()
    }

    /// Streams `request` (from ``prepare()``) into the partial file, held to `deadlines`
    /// (the overall one plus a second per 64 KiB still to fetch), then verifies and adopts it.
    /// - Throws: what the stream or the checks found, as a ``HybridError``; the partial file is
    ///   kept for the next attempt to resume unless its bytes were wrong.
    package func run(_ request: URLRequest, deadlines: DownloadDeadlines) async throws {
        var deadlines = deadlines
        deadlines.overall += Double(max(0, file.storedSize - received)) / 65_536
        defer { try? handle?.close(); handle = nil }
        do {
            // A 206 declares what is left, a 200 the whole blob: neither may exceed the blob.
            try await HTTPStream.get(request, refusingOver: file.storedSize, deadlines: deadlines, into: self)
        } catch let failure as BoundedFetch.Failure {
            if case .tooLarge(_, let declared) = failure {
                throw HybridError.pkg(.corruptBlob(sha256: file.blob, reason: "server declared \(declared.map(String.init) ?? "more") bytes, more than its \(file.storedSize)"))
            }
            throw HybridError.pkg(.from(failure, url: url))
        }
        try complete()
    }

    // MARK: HTTPStreamSink (on the stream's thread, one call at a time)

    package func received(response: HTTPURLResponse) throws {
        let status = response.statusCode
        switch status {
        case 206:
            let range = response.value(forHTTPHeaderField: "Content-Range") ?? ""
            if range.hasPrefix("bytes \(received)-") { return }
            fallthrough
        case 200 where received > 0:
            // The server ignored or mangled the Range: start over from byte zero.
            do { try handle?.truncate(atOffset: 0) } catch { throw HybridError.pkg(.writeFailed(path: partial.path, message: "\(error)")) }
            digest = digests.makeSHA256()
            received = 0
            resumedFrom = 0
            guard status == 200 else { throw HybridError.pkg(.downloadFailed(url: url.absoluteString, message: "unexpected Content-Range")) }
        case 200:
            return
        default:
            throw HybridError.pkg(.httpStatus(url: url.absoluteString, status: status))
        }
    }

    package func received(body bytes: UnsafeRawBufferPointer) throws {
        guard received + bytes.count <= file.storedSize else {
            try? handle?.truncate(atOffset: 0)
            throw HybridError.pkg(.corruptBlob(sha256: file.blob, reason: "server sent more than \(file.storedSize) bytes"))
        }
        let data = Data(bytes)
        do {
            try store.config.faults?.willWrite(data.count, to: partial.path)
            try handle?.write(contentsOf: data)
        } catch {
            throw PackageStore.writeError(error, path: partial.path)
        }
        received += data.count
        digest.update(data)
        onBytes(data.count)
    }

    // MARK: Internals

    /// Checks the stored bytes, decodes them, checks the file's bytes, and moves them into the store.
    private func complete() throws {
        defer { try? handle?.close(); handle = nil }
        guard received == file.storedSize else {
            // Keep the partial: the next attempt resumes from here.
            throw HybridError.pkg(.downloadFailed(url: url.absoluteString, message: "truncated: \(received) of \(file.storedSize) bytes"))
        }
        let actual = digest.finalize().lowercaseHex
        guard actual == file.blob else {
            try? FileManager.default.removeItem(at: partial)
            throw HybridError.pkg(.corruptBlob(sha256: file.blob, reason: "SHA-256 of the download is \(actual)"))
        }
        if file.encoding == PackageFile.identity {
            // Rename while still holding the lock, so a second updater never sees a half-adopted file.
            do {
                try store.adoptBlob(at: partial, sha256: file.sha256)
            } catch where store.hasBlob(file.sha256) {
                // Another updater adopted the same bytes first.
            }
        }
    }
}
