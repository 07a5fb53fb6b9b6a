#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// Permissions, file pickers and frame origins over DevTools. Chromium asks nobody at request
/// time (there is no permission-prompt event), so the policy's grants are given up front
/// (`Browser.grantPermissions`) and every other origin is refused by headless Chromium itself.
extension BlinkDriver {
    /// Chromium's names for the contract's permission kinds.
    static func permissionNames(_ kinds: Set<PermissionKind>) -> [JSONValue] {
        kinds.sorted { $0.rawValue < $1.rawValue }.map {
            switch $0 {
            case .camera: "videoCapture"
            case .microphone: "audioCapture"
            case .geolocation: "geolocation"
            case .notifications: "notifications"
            }
        }
    }

    /// Grants the configuration's permissions (browser-wide: Chromium keeps them per origin in
    /// the browser context) and turns file-chooser interception on; runs before the view attaches.
    func configureData(_ session: String) {
        for (origin, kinds) in configuration.permissionGrants.sorted(by: { $0.key < $1.key }) where !kinds.isEmpty {
            browser.send("Browser.grantPermissions", ["origin": .string(origin), "permissions": .array(Self.permissionNames(kinds))])
        }
        browser.send("Page.setInterceptFileChooserDialog", ["enabled": true], session: session)
        provider?.downloads.enable(on: browser)
    }

    /// Keeps each frame's origin (downloads and pickers name the frame that asked).
    func frameOriginReported(_ frame: JSONValue) {
        guard let id = frame.string("id"), let url = frame.string("url").flatMap(URL.init(string:)) else { return }
        frameOrigins[id] = BridgeOrigin(url: url)
    }

    /// The origin of frame `id`: the one it last navigated to, else the page's.
    func origin(ofFrame id: String?) -> BridgeOrigin? {
        id.flatMap { frameOrigins[$0] } ?? currentURL.flatMap(BridgeOrigin.init(url:))
    }

    /// `Page.fileChooserOpened`: the input's `accept` and `capture` are read from its node, the
    /// host answers, and the chosen files are set on the input (`DOM.setFileInputFiles`). No file
    /// leaves the input as it was.
    func fileChooserOpened(_ params: JSONValue) {
        guard let node = params.int("backendNodeId") else { return }
        let multiple = params.string("mode") == "selectMultiple"
        let origin = origin(ofFrame: params.string("frameId"))
        send("DOM.describeNode", ["backendNodeId": .number(Double(node))]) { [weak self] result in
            guard let self, let host = self.host else { return }
            var attributes: [String: String] = [:]
            if case .success(let described) = result, let list = described["node"]?["attributes"]?.arrayValue {
                for index in stride(from: 0, to: list.count - 1, by: 2) {
                    if let name = list[index].stringValue { attributes[name.lowercased()] = list[index + 1].stringValue ?? "" }
                }
            }
            let accept = (attributes["accept"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let request = FileChooserRequest(acceptTypes: accept, allowsMultiple: multiple, capture: attributes["capture"], origin: origin)
            host.fileChooserOpened(request) { [weak self] files in
                let chosen = multiple ? files : Array(files.prefix(1))
                guard let self, !chosen.isEmpty else { return }
                self.fire("DOM.setFileInputFiles", [
                    "files": .array(chosen.map { .string($0.path) }), "backendNodeId": .number(Double(node)),
                ])
            }
        }
    }
}
#endif
