import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridBase
import HybridHTTP

/// The HTTP side of the updater: small documents in memory through ``BoundedFetch``, blobs
/// streamed to disk through ``BlobTransfer``s; both are ``HTTPStream``s held to ``deadlines``.
struct PackageDownloader: Sendable {
    private let digests: any DigestFactory
    private let deadlines: DownloadDeadlines

    /// - Parameters:
    ///   - timeout: the longest a request may wait for data; the stall deadline is the shorter
    ///     of it and `deadlines.stall`.
    package init(digests: any DigestFactory, timeout: TimeInterval, deadlines: DownloadDeadlines = .standard) {
        self.digests = digests
        self.deadlines = DownloadDeadlines(overall: deadlines.overall, stall: min(deadlines.stall, timeout))
    }

    /// GETs a small document, held to `limit` bytes as they arrive and to ``deadlines``.
    /// `nil` on 404 (a missing signature is a finding, not a transport error).
    /// - Throws: ``PackageFailure/httpStatus(url:status:)``, ``PackageFailure/tooLarge(url:limit:declared:)``,
    ///   ``PackageFailure/stalled(url:seconds:)``, ``PackageFailure/timedOut(url:seconds:)`` or
    ///   ``PackageFailure/downloadFailed(url:message:)``.
    package func document(_ url: URL, limit: Int = PackageDownloader.documentLimit, revalidating: Bool = false) async throws -> Data? {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        // Past a CDN edge's copy: the edge revalidates with the origin before it answers.
        if revalidating { request.setValue("no-cache", forHTTPHeaderField: "Cache-Control") }
        let response: HTTPURLResponse, data: Data
        do {
            (response, data) = try await BoundedFetch.get(request, limit: limit, deadlines: deadlines)
        } catch let failure as BoundedFetch.Failure {
            throw HybridError.pkg(.from(failure, url: url))
        }
        if response.statusCode == 404 { return nil }
        guard response.statusCode == 200 else { throw HybridError.pkg(.httpStatus(url: url.absoluteString, status: response.statusCode)) }
        return data
    }

    /// The largest document (pointer, manifest, signature, patch index, rotation statement) the
    /// updater accepts: 16 MiB.
    static let documentLimit = 16 << 20

    /// What fetching one blob took.
    package struct Outcome: Sendable {
        /// Bytes fetched over the network.
        package var fetched = 0
        /// Bytes an earlier, interrupted attempt had already written.
        package var resumed = 0
        /// Another updater on the store fetched it while this one waited.
        var byAnotherUpdater = false
        /// How it was obtained: the full blob, unless a patch made it.
        package var way: PackageUpdater.Way = .full
        /// The patch's base when ``way`` is `.patch`.
        var patchBase: String?
        /// Why cheaper ways failed, in the order tried.
        package var fallbacks: [String] = []
    }

    /// Downloads one blob into the store (resuming a partial one), verified and decoded.
    package func fetch(_ file: PackageFile, from url: URL, into store: PackageStore, platform: PackagePlatform,
               onBytes: @escaping @Sendable (Int) -> Void) async throws -> Outcome {
        let transfer = BlobTransfer(url: url, file: file, store: store, digests: digests, onBytes: onBytes)
        guard let request = try await transfer.prepare() else {
            if store.hasBlob(file.sha256) { return Outcome(byAnotherUpdater: true) }
            try transfer.finishWithoutRequest()
            try decodeIfNeeded(file, transfer: transfer, store: store, platform: platform)
            return Outcome(resumed: transfer.resumedFrom)
        }
        try await transfer.run(request, deadlines: deadlines)
        try decodeIfNeeded(file, transfer: transfer, store: store, platform: platform)
        return Outcome(fetched: file.storedSize - transfer.resumedFrom, resumed: transfer.resumedFrom)
    }

    private func decodeIfNeeded(_ file: PackageFile, transfer: BlobTransfer, store: PackageStore, platform: PackagePlatform) throws {
        guard file.encoding != PackageFile.identity else { return }
        guard !store.hasBlob(file.sha256) else {
            try? FileManager.default.removeItem(at: transfer.partial)
            return
        }
        guard let stored = FileManager.default.contents(atPath: transfer.partial.path) else {
            throw HybridError.pkg(.missingBlob(file.blob))
        }
        let contents: Data
        do {
            contents = try platform.decode(stored, encoding: file.encoding, expectedSize: file.size)
        } catch {
            try? FileManager.default.removeItem(at: transfer.partial)
            throw error
        }
        guard platform.digests.sha256Hex(contents) == file.sha256 else {
            try? FileManager.default.removeItem(at: transfer.partial)
            throw HybridError.pkg(.corruptBlob(sha256: file.sha256, reason: "decoded contents do not match the manifest"))
        }
        try store.writeBlob(contents, sha256: file.sha256)
        try? FileManager.default.removeItem(at: transfer.partial)
    }
}
