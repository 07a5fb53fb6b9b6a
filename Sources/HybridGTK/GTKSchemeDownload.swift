import CWebKitGTK
import Foundation
import HybridCore

/// A download of the app's own custom scheme on WebKitGTK: WebKit downloads in its network
/// process, which cannot load the UI process's scheme handlers, so it fails such a download at
/// once ("The URL can't be shown") before any question. The view's handler for the scheme serves
/// it instead: its response names the file (`Content-Disposition`, else the URL's last path
/// component), the host places it, and the body is written there with progress.
@MainActor
enum GTKSchemeDownload {
    /// Serves `source` with `handler` and hands the result to `host` as download `id`.
    static func run(id: String, source: URL, origin: BridgeOrigin?, handler: any URLSchemeHandler, driver: GTKDriver) {
        ImmediateTask.start { @MainActor [weak driver] in
            guard let response = try? await handler.respond(to: SchemeRequest(url: source)), (200..<300).contains(response.status),
                  let host = driver?.host
            else { return }
            let length: Int64? = switch response.body {
            case .data(let data): Int64(data.count)
            case .stream(_, let length): length
            }
            let download = Download(
                id: id, sourceURL: source, origin: origin,
                suggestedFilename: ContentDisposition(response.header("Content-Disposition"))?.filename ?? source.lastPathComponent,
                mimeType: response.header("Content-Type")?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) },
                expectedLength: length)
            host.downloadStarted(download) { [weak driver] decision in
                guard case .save(let file) = decision else { return }
                ImmediateTask.start { @MainActor [weak driver] in
                    let event = await write(response.body, to: file, expected: length) { received in
                        driver?.host?.downloadChanged(id, .progress(received: received, expected: length))
                    }
                    driver?.host?.downloadChanged(id, event)
                }
            }
        }
    }

    /// Writes the body to `file` (replacing it); a failure removes what was written.
    private static func write(_ body: SchemeResponse.Body, to file: URL, expected: Int64?,
                              progress: @MainActor (Int64) -> Void) async -> DownloadEvent {
        do {
            try? FileManager.default.removeItem(at: file)
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                return .failed(message: "cannot create \(file.path)")
            }
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            var received: Int64 = 0
            switch body {
            case .data(let data):
                try handle.write(contentsOf: data)
                received = Int64(data.count)
                progress(received)
            case .stream(let chunks, _):
                for try await chunk in chunks {
                    try handle.write(contentsOf: chunk)
                    received += Int64(chunk.count)
                    progress(received)
                }
            }
            return .finished(file: file)
        } catch {
            try? FileManager.default.removeItem(at: file)
            return .failed(message: "\(error)")
        }
    }
}
