#if canImport(WebKit)
import Foundation
import HybridCore
import WebKit
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// Scripts and snapshots: every asynchronous call is tracked, so a content-process crash or
/// ``WKWebEngine/close()`` fails it exactly once and WebKit's late answer is ignored.
extension WKWebEngine {
    /// Evaluates `script` in `world` (the page's world or a named `WKContentWorld`).
    /// - Returns: the completion value as JSON; `undefined` and `null` are `null`.
    /// - Throws: `HybridError.engine(.javaScript)` with the exception's message, `.resultNotJSON`
    ///   for a value JSON has no form for, `.closed` or `.contentProcessTerminated` when the view
    ///   closes or its process dies first.
    public func evaluate(_ script: String, in world: ScriptWorld) async throws -> JSONValue {
        // The completion-handler form: the async form traps before iOS 18 when the value is
        // `undefined` (webkit.org/b/282918); this one reports it as a boxed nil (JSON null).
        let webView = self.webView
        return try await track { done in
            webView.evaluateJavaScript(script, in: nil, in: world.contentWorld) { result in
                done(WKScriptValue.jsonResult(result))
            }
        }
    }

    /// Runs `body` as the body of an async function whose parameters are `arguments`
    /// (`callAsyncJavaScript`) and awaits the Promise it returns.
    /// - Returns: the fulfilled value as JSON; `undefined` and `null` are `null`.
    /// - Throws: `HybridError.engine(.javaScript)` when the function throws or its Promise
    ///   rejects; otherwise as ``evaluate(_:in:)``.
    public func callAsync(_ body: String, arguments: [String: JSONValue], in world: ScriptWorld) async throws -> JSONValue {
        // Arguments travel as JSON text and are parsed first thing in the function, so every
        // JSON value arrives with its JavaScript type (as on WebKitGTK).
        let names = arguments.keys.sorted()
        let source = names.map { "\($0) = JSON.parse(\($0));\n" }.joined() + body
        let texts: [String: Any] = arguments.mapValues { $0.jsonText }
        let webView = self.webView
        return try await track { done in
            // The completion-handler form, for the same reason as in evaluate(_:in:).
            webView.callAsyncJavaScript(source, arguments: texts, in: nil, in: world.contentWorld) { result in
                done(WKScriptValue.jsonResult(result))
            }
        }
    }

    /// The visible page as PNG data (`takeSnapshot(with:)`, without waiting for screen updates,
    /// so a view that is not on screen still answers).
    /// - Throws: `HybridError.engine(.snapshotFailed)` when WebKit makes no image; `.closed` or
    ///   `.contentProcessTerminated` when the view closes or its process dies first.
    public func snapshot() async throws -> Data {
        let webView = self.webView
        return try await track { done in
            let configuration = WKSnapshotConfiguration()
            // After screen updates, a snapshot of a view that is not on screen never completes.
            configuration.afterScreenUpdates = false
            webView.takeSnapshot(with: configuration) { image, error in
                if let error {
                    done(.failure(HybridError.engine(.snapshotFailed(error.localizedDescription))))
                } else if let image, let png = Self.pngData(image) {
                    done(.success(png))
                } else {
                    done(.failure(HybridError.engine(.snapshotFailed("no image"))))
                }
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

    /// Starts an asynchronous WebKit call and waits for it; the call is failed exactly once by
    /// whichever comes first: WebKit's answer, ``failPending(_:)`` (crash, close).
    func track<T: Sendable>(
        _ start: (@escaping @MainActor @Sendable (Result<T, any Error>) -> Void) -> Void
    ) async throws -> T {
        try checkUsable()
        nextCallID += 1
        let id = nextCallID
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let call = PendingCall(continuation)
            pendingCalls[id] = { error in call.resume(.failure(error)) }
            start { [weak self] result in
                self?.pendingCalls[id] = nil
                call.resume(result)
            }
        }
    }
}

/// A continuation resumed once; later answers are ignored.
@MainActor
final class PendingCall<T: Sendable> {
    private var continuation: CheckedContinuation<T, any Error>?
    init(_ continuation: CheckedContinuation<T, any Error>) { self.continuation = continuation }
    func resume(_ result: Result<T, any Error>) {
        continuation?.resume(with: result)
        continuation = nil
    }
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
