import Foundation
import HybridCore

extension WebDriverSession {
    /// The viewport as a base64 PNG (the engine renders the view).
    func screenshot() async throws -> JSONValue {
        .string(try await viewportPNG().base64EncodedString())
    }

    /// An element's box, scrolled into view, cut out of the viewport's PNG.
    func screenshot(element id: String) async throws -> JSONValue {
        let box = try await value("viewRect", ["id": .string(id)])
        let png = try await viewportPNG()
        guard let x = box["x"]?.numberValue, let y = box["y"]?.numberValue, let width = box["width"]?.numberValue,
              let height = box["height"]?.numberValue else { throw WebDriverError(.unknownError, "the element has no box") }
        let scale = box["scale"]?.numberValue ?? 1
        let crop = PNGImage.Rect(x: Int((x * scale).rounded(.down)), y: Int((y * scale).rounded(.down)),
                                 width: Int((width * scale).rounded(.up)), height: Int((height * scale).rounded(.up)))
        do {
            return .string(try PNGImage(png).cropped(to: crop).encoded().base64EncodedString())
        } catch {
            throw WebDriverError(.unableToCaptureScreen, "cropping the element out of the page: \(error)")
        }
    }

    private func viewportPNG() async throws -> Data {
        do { return try await view.engine.snapshot() } catch { throw WebDriverError(.unableToCaptureScreen, "\(error)") }
    }
}
