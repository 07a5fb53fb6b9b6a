import CHybridGTK
import CWebKitGTK
import Foundation
import HybridCore

// Data-plane signals: `permission-request` and `run-file-chooser` on the view, `download-started`
// on the network session (routed to the view that started it) and each download's own signals.
private typealias RequestThunk = @convention(c) (gpointer?, gpointer?, gpointer?) -> gboolean
private typealias DownloadStartedThunk = @convention(c) (gpointer?, OpaquePointer?, gpointer?) -> Void
private typealias DecideDestinationThunk = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, gpointer?) -> gboolean
private typealias ReceivedDataThunk = @convention(c) (OpaquePointer?, guint64, gpointer?) -> Void
private typealias FinishedThunk = @convention(c) (OpaquePointer?, gpointer?) -> Void
private typealias FailedThunk = @convention(c) (OpaquePointer?, UnsafeMutablePointer<GError>?, gpointer?) -> Void

private let permissionThunk: RequestThunk = { _, request, data in
    guard let request else { return 0 }
    return onMain((data, request)) { data, request in
        signalHandler(data, as: Weak<GTKDriver>.self)?.value?.permissionRequested(request) == true ? 1 : 0
    }
}
private let fileChooserThunk: RequestThunk = { _, request, data in
    guard let request else { return 0 }
    return onMain((data, request)) { data, request in
        signalHandler(data, as: Weak<GTKDriver>.self)?.value?.fileChooserRequested(OpaquePointer(request)) == true ? 1 : 0
    }
}
private let downloadStartedThunk: DownloadStartedThunk = { _, download, data in
    guard let download else { return }
    onMain((data, download)) { data, download in
        signalHandler(data, as: Weak<GTKEngineProvider>.self)?.value?.downloadStarted(download)
    }
}
private let decideDestinationThunk: DecideDestinationThunk = { _, suggested, data in
    let name = suggested.map { String(cString: $0) } ?? ""
    return onMain((data, name)) { data, name in
        signalHandler(data, as: GTKDownload.self)?.decideDestination(suggested: name) == true ? 1 : 0
    }
}
private let receivedDataThunk: ReceivedDataThunk = { _, _, data in
    onMain(data) { signalHandler($0, as: GTKDownload.self)?.receivedData() }
}
private let finishedThunk: FinishedThunk = { _, data in
    onMain(data) { signalHandler($0, as: GTKDownload.self)?.finished() }
}
private let failedThunk: FailedThunk = { _, error, data in
    onMain((data, error)) { data, error in signalHandler(data, as: GTKDownload.self)?.failed(error) }
}

private func isA(_ instance: gpointer, _ type: GType) -> Bool {
    g_type_check_instance_is_a(instance.assumingMemoryBound(to: GTypeInstance.self), type) != 0
}

extension GTKDriver {
    func connectDataSignals() {
        let me = Weak(self)
        let instance = UnsafeMutableRawPointer(view)
        append(connectSignal(instance, "permission-request", thunk: signalThunk(permissionThunk), handler: me))
        append(connectSignal(instance, "run-file-chooser", thunk: signalThunk(fileChooserThunk), handler: me))
    }

    /// The origin of the page shown. A permission request names no frame on WebKitGTK; an iframe
    /// reaches one only when its page delegated the feature (`allow="camera"`), so the page answers for it.
    var pageOrigin: BridgeOrigin? { url.flatMap(BridgeOrigin.init(url:)) }

    /// Returns whether the request is answered here; a kind the contract has no name for (screen
    /// capture, clipboard, pointer lock…) is left to WebKit, which denies it.
    fileprivate func permissionRequested(_ request: gpointer) -> Bool {
        guard let host, let origin = pageOrigin else { return false }
        var kinds: Set<PermissionKind> = []
        if isA(request, webkit_user_media_permission_request_get_type()) {
            let media = OpaquePointer(request)
            if webkit_user_media_permission_is_for_display_device(media) != 0 { return false }
            if webkit_user_media_permission_is_for_audio_device(media) != 0 { kinds.insert(.microphone) }
            if webkit_user_media_permission_is_for_video_device(media) != 0 { kinds.insert(.camera) }
        } else if isA(request, webkit_geolocation_permission_request_get_type()) {
            kinds = [.geolocation]
        } else if isA(request, webkit_notification_permission_request_get_type()) {
            kinds = [.notifications]
        }
        guard !kinds.isEmpty else { return false }
        g_object_ref(request)
        let pointer = Unchecked(request)
        host.permissionRequested(PermissionRequest(kinds: kinds, origin: origin)) { decision in
            let permission = OpaquePointer(pointer.value)
            if decision == .allow { webkit_permission_request_allow(permission) } else { webkit_permission_request_deny(permission) }
            g_object_unref(pointer.value)
        }
        return true
    }

    /// Returns whether the picker is answered here (WebKit then waits for its files or cancel).
    fileprivate func fileChooserRequested(_ request: OpaquePointer) -> Bool {
        guard let host else { return false }
        var types: [String] = []
        if var cursor = webkit_file_chooser_request_get_mime_types(request) {
            while let type = cursor.pointee {
                types.append(String(cString: type))
                cursor += 1
            }
        }
        // WebKitGTK does not say which frame's input opened it, and any frame may open one (no
        // `allow=` gates it): the origin is unknown rather than guessed as the page's.
        let chooser = FileChooserRequest(
            acceptTypes: types, allowsMultiple: webkit_file_chooser_request_get_select_multiple(request) != 0, origin: nil)
        g_object_ref(UnsafeMutableRawPointer(request))
        let pointer = Unchecked(request)
        host.fileChooserOpened(chooser) { files in
            let request = pointer.value
            let paths = chooser.allowsMultiple ? files.map(\.path) : Array(files.prefix(1).map(\.path))
            if paths.isEmpty {
                webkit_file_chooser_request_cancel(request)
            } else {
                let copies = paths.map { strdup($0) }
                var array: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
                array.withUnsafeMutableBufferPointer { webkit_file_chooser_request_select_files(request, $0.baseAddress) }
                copies.forEach { free($0) }
            }
            g_object_unref(UnsafeMutableRawPointer(request))
        }
        return true
    }
}

extension GTKEngineProvider {
    /// Listens for downloads on the session (once per provider).
    func connectDownloads() {
        _ = connectSignal(UnsafeMutableRawPointer(session), "download-started", thunk: signalThunk(downloadStartedThunk), handler: Weak(self))
    }

    /// A download of one of this provider's views is followed; any other (a download no view
    /// started) is cancelled, as nobody can decide where it goes.
    fileprivate func downloadStarted(_ download: OpaquePointer) {
        guard let view = webkit_download_get_web_view(download), let driver = driver(for: view) else {
            webkit_download_cancel(download)
            return
        }
        GTKDownload.follow(download, driver: driver)
    }
}

/// One WebKitDownload followed from its start to its end: kept alive (with a reference on the
/// download) until WebKit says it finished or failed.
@MainActor
final class GTKDownload {
    private static var live: [ObjectIdentifier: GTKDownload] = [:]
    private static var nextID = 0

    let id: String
    let download: OpaquePointer
    weak var driver: GTKDriver?
    private var connections: [SignalConnection] = []
    private var destination: URL?
    private var cancelledByDecision = false
    /// WebKit asked where it goes (a download of the app's own scheme fails before that).
    private var asked = false
    private var ended = false

    /// A download id not used before in this process.
    static func newID() -> String {
        nextID += 1
        return "webkit-\(nextID)"
    }

    private init(_ download: OpaquePointer, driver: GTKDriver) {
        id = Self.newID()
        self.download = download
        self.driver = driver
        g_object_ref(UnsafeMutableRawPointer(download))
    }

    static func follow(_ download: OpaquePointer, driver: GTKDriver) {
        let followed = GTKDownload(download, driver: driver)
        let instance = UnsafeMutableRawPointer(download)
        followed.connections = [
            connectSignal(instance, "decide-destination", thunk: signalThunk(decideDestinationThunk), handler: followed),
            connectSignal(instance, "received-data", thunk: signalThunk(receivedDataThunk), handler: followed),
            connectSignal(instance, "finished", thunk: signalThunk(finishedThunk), handler: followed),
            connectSignal(instance, "failed", thunk: signalThunk(failedThunk), handler: followed),
        ]
        live[ObjectIdentifier(followed)] = followed
    }

    private var host: (any EngineDriverHost)? { driver?.host }

    fileprivate func decideDestination(suggested: String) -> Bool {
        asked = true
        guard let host else {
            cancelledByDecision = true
            webkit_download_cancel(download)
            return true
        }
        let request = webkit_download_get_request(download)
        let source = request.flatMap { webkit_uri_request_get_uri($0) }.flatMap { URL(string: String(cString: $0)) }
        let response = webkit_download_get_response(download)
        let length = response.map { Int64(webkit_uri_response_get_content_length($0)) } ?? 0
        let described = Download(
            id: id, sourceURL: source ?? URL(string: "about:blank")!, origin: request.flatMap(Self.referringOrigin), suggestedFilename: suggested,
            mimeType: response.flatMap { webkit_uri_response_get_mime_type($0) }.map { String(cString: $0) },
            expectedLength: length > 0 ? length : nil)
        host.downloadStarted(described) { [weak self] decision in
            guard let self, !self.ended else { return }
            switch decision {
            case .save(let file):
                self.destination = file
                webkit_download_set_allow_overwrite(self.download, 1)
                webkit_download_set_destination(self.download, file.path)
            case .cancel:
                self.cancelledByDecision = true
                webkit_download_cancel(self.download)
            }
        }
        return true
    }

    /// The origin of the document that asked, from the request's `Referer`: a WebKitDownload names
    /// no frame, and the page's origin would credit a foreign iframe's download to the page. No
    /// `Referer` (a `no-referrer` document) is an unknown origin, never the page's.
    private static func referringOrigin(_ request: OpaquePointer) -> BridgeOrigin? {
        guard let headers = webkit_uri_request_get_http_headers(request),
              let referer = soup_message_headers_get_one(headers, "Referer") else { return nil }
        return URL(string: String(cString: referer)).flatMap(BridgeOrigin.init(url:))
    }

    fileprivate func receivedData() {
        guard destination != nil else { return }
        let response = webkit_download_get_response(download)
        let length = response.map { Int64(webkit_uri_response_get_content_length($0)) } ?? 0
        host?.downloadChanged(id, .progress(received: Int64(webkit_download_get_received_data_length(download)),
                                            expected: length > 0 ? length : nil))
    }

    fileprivate func failed(_ error: UnsafeMutablePointer<GError>?) {
        guard !ended else { return }
        let request = webkit_download_get_request(download)
        if !asked, let driver, let source = request.flatMap({ webkit_uri_request_get_uri($0) }).flatMap({ URL(string: String(cString: $0)) }),
           let handler = driver.configuration.schemeHandlers[source.scheme?.lowercased() ?? ""] {
            GTKSchemeDownload.run(id: id, source: source, origin: request.flatMap(Self.referringOrigin), handler: handler, driver: driver)
            return end(nil)
        }
        let cancelled = cancelledByDecision || error.map {
            $0.pointee.domain == webkit_download_error_quark() && $0.pointee.code == WEBKIT_DOWNLOAD_ERROR_CANCELLED_BY_USER.rawValue
        } ?? false
        let message = error?.pointee.message.map { String(cString: $0) } ?? "download failed"
        end(cancelled ? .cancelled : .failed(message: message))
    }

    fileprivate func finished() {
        guard !ended else { return }
        if let destination { end(.finished(file: destination)) } else { end(.cancelled) }
    }

    /// Reports the end (only for a download the app placed; `nil`: nothing to report) and lets go.
    private func end(_ event: DownloadEvent?) {
        ended = true
        if let event, destination != nil { host?.downloadChanged(id, event) }
        if let destination, event != .finished(file: destination) {
            try? FileManager.default.removeItem(at: destination)
        }
        for connection in connections { connection.disconnect() }
        connections.removeAll()
        g_object_unref(UnsafeMutableRawPointer(download))
        Self.live[ObjectIdentifier(self)] = nil
    }
}
