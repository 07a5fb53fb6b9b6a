#if canImport(WebKit)
import Foundation
import HybridCore
import WebKit
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// Scripts and snapshots: WebKit's completion-handler calls, each answering its completion once.
extension WKDriver {
    /// Evaluates `script` in `world` (the page's world or a named `WKContentWorld`); `undefined`
    /// and `null` are `null`, an exception is `.javaScript`, a value JSON has no form for `.resultNotJSON`.
    public func evaluate(_ script: String, in world: ScriptWorld,
                         completion: @escaping @MainActor @Sendable (Result<JSONValue, any Error>) -> Void) {
        // The completion-handler form: the async form traps before iOS 18 when the value is
        // `undefined` (webkit.org/b/282918); this one reports it as a boxed nil (JSON null).
        webView.evaluateJavaScript(script, in: nil, in: world.contentWorld) { result in
            completion(WKScriptValue.jsonResult(result))
        }
    }

    /// Runs `body` as the body of an async function whose parameters are `arguments`
    /// (`callAsyncJavaScript`) and answers what its Promise settled to.
    public func callAsync(_ body: String, arguments: [String: JSONValue], in world: ScriptWorld,
                          completion: @escaping @MainActor @Sendable (Result<JSONValue, any Error>) -> Void) {
        // Arguments travel as JSON text and are parsed first thing in the function, so every
        // JSON value arrives with its JavaScript type (as on WebKitGTK).
        let names = arguments.keys.sorted()
        let source = names.map { "\($0) = JSON.parse(\($0));\n" }.joined() + body
        let texts: [String: Any] = arguments.mapValues { $0.jsonText }
        // The completion-handler form, for the same reason as in evaluate(_:in:completion:).
        webView.callAsyncJavaScript(source, arguments: texts, in: nil, in: world.contentWorld) { result in
            completion(WKScriptValue.jsonResult(result))
        }
    }

    /// The visible page as PNG data (`takeSnapshot(with:)`, without waiting for screen updates,
    /// so a view that is not on screen still answers); `snapshotFailed` when WebKit makes no image.
    public func snapshot(completion: @escaping @MainActor @Sendable (Result<Data, any Error>) -> Void) {
        let configuration = WKSnapshotConfiguration()
        // After screen updates, a snapshot of a view that is not on screen never completes.
        configuration.afterScreenUpdates = false
        webView.takeSnapshot(with: configuration) { image, error in
            if let error {
                completion(.failure(HybridError.engine(.snapshotFailed(error.localizedDescription))))
            } else if let image, let png = Self.pngData(image) {
                completion(.success(png))
            } else {
                completion(.failure(HybridError.engine(.snapshotFailed("no image"))))
            }
        }
    }

    #if os(macOS)
    private static func pngData(_ image: NSImage) -> Data? {
        guard let tiff = image.tiffRepresentation, let bitmap = NSBitmapImageRep(data: tiff) else { return nil }
        return bitmap.representation(using: .png, properties: [:])
    }
    #else
    private static func pngData(_ image: UIImage) -> Data? {
        image.pngData()
    }
    #endif
}

extension ScriptWorld {
    /// The content world a ``ScriptWorld`` names: the page's own, or an isolated one by name.
    @MainActor var contentWorld: WKContentWorld {
        switch self {
        case .page: WKContentWorld.page
        case .named(let name): WKContentWorld.world(name: name)
        }
    }
}
#endif
