#if canImport(WebKit)
import Foundation
import HybridCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebKit

/// The `WKDownloadDelegate` of every download a view's navigations become (`<a download>`,
/// `blob:`/`data:` links, a `.download` response policy): the host places it (a destination URL,
/// or cancel: WebKit cancels on a `nil` destination), its progress is observed, and its end is
/// reported. Holds the driver weakly; nothing reaches the host after tear-down.
@MainActor
final class WKDownloadProxy: NSObject, WKDownloadDelegate {
    private struct Entry {
        let id: String
        let origin: BridgeOrigin?
        var destination: URL?
        var observation: NSKeyValueObservation?
    }

    weak var driver: WKDriver?
    private var entries: [ObjectIdentifier: Entry] = [:]
    private var nextID = 0

    /// Takes `download` over (its delegate is this proxy until it ends); `origin` started it.
    func follow(_ download: WKDownload, origin: BridgeOrigin?) {
        nextID += 1
        entries[ObjectIdentifier(download)] = Entry(id: "wk-\(nextID)", origin: origin)
        download.delegate = self
    }

    func download(
        _ download: WKDownload, decideDestinationUsing response: URLResponse, suggestedFilename: String,
        completionHandler: @escaping @MainActor @Sendable (URL?) -> Void
    ) {
        let key = ObjectIdentifier(download)
        guard let host = driver?.host, let entry = entries[key] else {
            entries[key] = nil
            completionHandler(nil)
            return
        }
        let source = download.originalRequest?.url ?? response.url ?? URL(string: "about:blank")!
        let described = Download(
            id: entry.id, sourceURL: source, origin: entry.origin,
            suggestedFilename: suggestedFilename, mimeType: response.mimeType,
            expectedLength: response.expectedContentLength > 0 ? response.expectedContentLength : nil)
        host.downloadStarted(described) { [weak self] decision in
            guard let self, case .save(let file) = decision else {
                self?.entries[key] = nil
                return completionHandler(nil)
            }
            // WebKit fails a download whose destination exists; the contract says "replace".
            try? FileManager.default.removeItem(at: file)
            self.entries[key]?.destination = file
            self.entries[key]?.observation = download.progress.observe(\.completedUnitCount, options: [.new]) { [weak self] progress, _ in
                let received = progress.completedUnitCount, total = progress.totalUnitCount
                Task { @MainActor in self?.report(key, .progress(received: received, expected: total > 0 ? total : nil)) }
            }
            completionHandler(file)
        }
    }

    func downloadDidFinish(_ download: WKDownload) {
        let key = ObjectIdentifier(download)
        guard let destination = entries[key]?.destination else { return end(key) }
        report(key, .finished(file: destination))
        end(key)
    }

    func download(_ download: WKDownload, didFailWithError error: any Error, resumeData: Data?) {
        let key = ObjectIdentifier(download)
        if let destination = entries[key]?.destination {
            try? FileManager.default.removeItem(at: destination)
            let nsError = error as NSError
            let cancelled = nsError.domain == NSURLErrorDomain && nsError.code == NSURLErrorCancelled
            report(key, cancelled ? .cancelled : .failed(message: nsError.localizedDescription))
        }
        end(key)
    }

    private func report(_ key: ObjectIdentifier, _ event: DownloadEvent) {
        guard let entry = entries[key] else { return }
        driver?.host?.downloadChanged(entry.id, event)
    }

    private func end(_ key: ObjectIdentifier) {
        entries[key]?.observation?.invalidate()
        entries[key] = nil
    }

    /// Stops observing every download (the view is going).
    func stopAll() {
        for entry in entries.values { entry.observation?.invalidate() }
        entries.removeAll()
    }
}
#endif
