#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// Chromium's downloads, placed by the app: Chromium writes every download into a private
/// directory under its GUID (`Browser.setDownloadBehavior` `allowAndName`, events on); the view
/// whose frame started it asks its host where it goes, and the finished file is moved there.
/// A cancelled one is stopped (`Browser.cancelDownload`) and its file removed.
@MainActor
final class BlinkDownloads {
    private struct Entry {
        var id: String
        weak var driver: BlinkDriver?
        var destination: URL?
        var decided = false
        var completed = false
        var ended = false
    }

    /// Where Chromium writes downloads before they are moved to the app's destination.
    let directory: URL
    private var entries: [String: Entry] = [:]
    private weak var enabledBrowser: BlinkBrowser?
    private let views: @MainActor () -> [BlinkDriver]

    init(views: @escaping @MainActor () -> [BlinkDriver]) {
        self.views = views
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hybridkit-downloads-\(UUID().uuidString)")
    }

    isolated deinit { try? FileManager.default.removeItem(at: directory) }

    /// Turns downloads into named files with events on `browser` (once per browser).
    func enable(on browser: BlinkBrowser) {
        guard enabledBrowser !== browser else { return }
        enabledBrowser = browser
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        browser.downloadEvents = { [weak self] method, params in self?.handle(method, params) }
        browser.send("Browser.setDownloadBehavior", [
            "behavior": "allowAndName", "downloadPath": .string(directory.path), "eventsEnabled": true,
        ])
    }

    private func handle(_ method: String, _ params: JSONValue) {
        guard let guid = params.string("guid") else { return }
        switch method {
        case "Browser.downloadWillBegin": willBegin(guid, params)
        case "Browser.downloadProgress": progressed(guid, params)
        default: break
        }
    }

    private func willBegin(_ guid: String, _ params: JSONValue) {
        let frame = params.string("frameId")
        let drivers = views()
        guard let driver = drivers.first(where: { $0.targetID == frame }) ?? drivers.first(where: { frame.map($0.hasFrame) ?? false }),
              let host = driver.host, let url = params.string("url").flatMap(URL.init(string:))
        else {
            cancel(guid)
            return
        }
        entries[guid] = Entry(id: "blink-\(guid)", driver: driver)
        let download = Download(id: "blink-\(guid)", sourceURL: url, origin: driver.origin(ofFrame: frame),
                                suggestedFilename: params.string("suggestedFilename") ?? "")
        host.downloadStarted(download) { [weak self] decision in
            guard let self, var entry = self.entries[guid] else { return }
            entry.decided = true
            switch decision {
            case .save(let file):
                entry.destination = file
                self.entries[guid] = entry
                if entry.completed { self.finish(guid) }
            case .cancel:
                self.entries[guid] = entry
                self.cancel(guid)
                self.end(guid, nil)
            }
        }
    }

    private func progressed(_ guid: String, _ params: JSONValue) {
        guard var entry = entries[guid], !entry.ended else { return }
        let received = Int64(params["receivedBytes"]?.numberValue ?? 0)
        let total = Int64(params["totalBytes"]?.numberValue ?? 0)
        switch params.string("state") {
        case "completed":
            entry.completed = true
            entries[guid] = entry
            if entry.destination != nil {
                entry.driver?.host?.downloadChanged(entry.id, .progress(received: received, expected: total > 0 ? total : nil))
                finish(guid)
            }
        case "canceled":
            end(guid, entry.destination == nil ? nil : .failed(message: "Chromium cancelled the download"))
        default:
            if entry.destination != nil {
                entry.driver?.host?.downloadChanged(entry.id, .progress(received: received, expected: total > 0 ? total : nil))
            }
        }
    }

    /// Moves the finished file to the app's destination (replacing a file there).
    private func finish(_ guid: String) {
        guard let destination = entries[guid]?.destination else { return }
        let source = directory.appendingPathComponent(guid)
        do {
            try? FileManager.default.removeItem(at: destination)
            try FileManager.default.moveItem(at: source, to: destination)
            end(guid, .finished(file: destination))
        } catch {
            end(guid, .failed(message: "could not move the download to \(destination.path): \(error)"))
        }
    }

    private func cancel(_ guid: String) {
        enabledBrowser?.send("Browser.cancelDownload", ["guid": .string(guid)]) { [directory] _ in
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(guid))
        }
    }

    /// Reports the end once (nothing for a download the app never placed) and forgets it.
    private func end(_ guid: String, _ event: DownloadEvent?) {
        guard let entry = entries[guid], !entry.ended else { return }
        entries[guid]?.ended = true
        if let event { entry.driver?.host?.downloadChanged(entry.id, event) }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(guid))
        entries[guid] = nil
    }
}
#endif
