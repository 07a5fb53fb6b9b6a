import Foundation
import HybridCore

/// The shop's data plane (docs/data.md), as the quick start's delegate answers it: downloads
/// (receipts, exports) go into the app's own folder, the page's file picker is the app's, and the
/// camera and microphone are the only things the shop's pages may ask for.
@MainActor
final class ShopFiles {
    /// Where the shop's downloads go; a page's file name never leaves it (`Download/destination(in:)`).
    let downloads: URL
    /// Camera and microphone: the shop's pages may ask (the app's prompt answers, remembered for the
    /// session); position, notifications and every other origin are denied without asking.
    let permissions = PermissionPolicy(memory: .session)
    /// The platform's file picker (a GTK file dialog, `UIDocumentPickerViewController`); `[]` chooses
    /// nothing. The quick start shows none: it answers no files until the app sets one.
    var picker: @MainActor (FileChooserRequest) async -> [URL] = { _ in [] }
    /// The app's camera prompt; the quick start shows none and refuses.
    var prompt: @MainActor (PermissionRequest) async -> PermissionDecision = { _ in .deny }
    /// The downloads that finished, in order, and the other ends (failed, cancelled) by id.
    private(set) var finished: [URL] = []
    private(set) var failures: [String: DownloadEvent] = [:]

    /// The shop's files in `directory` (created when missing).
    init(directory: URL) {
        downloads = directory.appendingPathComponent("downloads", isDirectory: true)
        try? FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        permissions.set(.ask, for: "app://m.example.com", kinds: [.camera, .microphone])
    }

    fileprivate func record(_ id: String, _ event: DownloadEvent) {
        switch event {
        case .progress: break
        case .finished(let file): finished.append(file)
        case .failed, .cancelled: failures[id] = event
        }
    }
}

/// The delegate's data-plane answers, from ``ShopFiles``.
extension ShopDelegate {
    func webView(_ webView: HybridWebView, decideDownload download: Download) async -> DownloadDecision {
        .save(to: download.destination(in: files.downloads))        // or .cancel
    }
    func webView(_ webView: HybridWebView, download id: String, didChange event: DownloadEvent) {
        files.record(id, event)                                     // progress, then finished/failed/cancelled
    }
    func webView(_ webView: HybridWebView, chooseFiles request: FileChooserRequest) async -> [URL] {
        await files.picker(request)                                 // request.acceptTypes, .allowsMultiple
    }
    func webView(_ webView: HybridWebView, decidePermission request: PermissionRequest) async -> PermissionDecision {
        await files.prompt(request)                                 // only for an `.ask` rule not yet answered
    }
}
