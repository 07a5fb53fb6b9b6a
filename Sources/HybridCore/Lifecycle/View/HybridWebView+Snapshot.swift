import Foundation

/// Media and snapshots: what the container does to a page's audio, video and pixels.
extension HybridWebView {
    /// Pauses every playing audio and video element and returns how many were playing, once the
    /// page has heard them pause (its `pause` handlers ran; at most 250 ms).
    @discardableResult
    public func pauseMedia() async -> Int {
        guard !isClosed, engine.isAlive, hasNavigated else { return 0 }
        let engine = self.engine
        let value = await WhiteScreenDetector.withTimeout(1) { try? await engine.callAsync(ContainerScripts.pauseMedia) }
        return (value ?? nil)?.numberValue.map { Int($0) } ?? 0
    }

    /// PNG data of the visible page. A page that registered a capture function
    /// (`hybrid.onSnapshot(() => canvas.toDataURL())`, for WebGL/canvas content an engine
    /// snapshot renders blank) is asked first; otherwise the engine renders the view.
    /// - Throws: `HybridError.engine(.snapshotFailed)` and the engine's errors.
    public func snapshot() async throws -> Data {
        if engine.isAlive, hasNavigated {
            let engine = self.engine
            let value = await WhiteScreenDetector.withTimeout(2) { try? await engine.callAsync(ContainerScripts.pageSnapshot) }
            if case .string(let dataURL)?? = value, let png = Self.pngData(fromDataURL: dataURL) { return png }
        }
        return try await engine.snapshot()
    }

    /// The bytes of a `data:image/png;base64,…` URL.
    static func pngData(fromDataURL text: String) -> Data? {
        let prefix = "data:image/png;base64,"
        guard text.hasPrefix(prefix), let data = Data(base64Encoded: String(text.dropFirst(prefix.count))),
              data.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
        return data
    }
}
