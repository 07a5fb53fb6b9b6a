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

    /// Keeps each frame's origin as it commits (downloads and pickers name the frame that asked).
    func frameOriginReported(_ frame: JSONValue) {
        guard let id = frame.string("id"), let url = frame.string("url").flatMap(URL.init(string:)) else { return }
        if id != targetID { knownFrames.insert(id) }
        frameOrigins[id] = BridgeOrigin(url: url)
    }

    /// A cross-site iframe Chromium put in a process of its own (a target of type `iframe`, whose id
    /// is its frame id): its URL as it commits.
    func iframeTargetReported(_ info: JSONValue) {
        guard info.string("parentId") == targetID, let id = info.string("targetId") else { return }
        knownFrames.insert(id)
        if let url = info.string("url").flatMap(URL.init(string:)), url.scheme != "about" { frameOrigins[id] = BridgeOrigin(url: url) }
    }

    /// `Page.frameDetached`: an iframe left the page, so its id and origin are forgotten (a page
    /// that adds and removes iframes all day keeps no trace of them). A `swap` (Chromium moving the
    /// frame to a process of its own) keeps them: the same id lives on as an iframe target.
    func frameDetached(_ params: JSONValue) {
        guard let id = params.string("frameId"), id != targetID, params.string("reason") != "swap" else { return }
        knownFrames.remove(id)
        frameOrigins[id] = nil
    }

    /// How many iframes this view keeps an id or origin for: the page's iframes, in its process or
    /// out of it; one that was removed is not counted (diagnostics; tests check it stays bounded).
    public var trackedFrameCount: Int {
        knownFrames.union(frameOrigins.keys).subtracting(targetID.map { [$0] } ?? []).count
    }

    /// The origin of frame `id`: the page's for the main frame (or no frame named), the one an
    /// iframe last committed to, and `nil` (unknown) for an iframe not seen committing, never the
    /// page's, so a foreign frame is not credited to the page.
    func origin(ofFrame id: String?) -> BridgeOrigin? {
        guard let id, id != targetID else { return currentURL.flatMap(BridgeOrigin.init(url:)) }
        return frameOrigins[id]
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
