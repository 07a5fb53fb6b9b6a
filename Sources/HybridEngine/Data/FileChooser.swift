import Foundation
import HybridBase

/// A page opened a file picker (`<input type=file>` clicked): the app answers with files, or none.
public struct FileChooserRequest: Sendable, Equatable {
    /// The input's `accept` list as the engine reports it (MIME types such as `image/*`, and
    /// extensions such as `.pdf` where the engine passes them); empty: anything.
    public var acceptTypes: [String]
    /// The input has `multiple`: several files may be chosen.
    public var allowsMultiple: Bool
    /// The input's `capture` attribute (`user`, `environment`), when the engine reports it.
    public var capture: String?
    /// The origin of the frame whose input opened the picker; `nil` when the engine does not say
    /// which frame it was (WebKitGTK), never guessed as the page's.
    public var origin: BridgeOrigin?

    /// A request as an engine adapter reports it.
    public init(acceptTypes: [String] = [], allowsMultiple: Bool = false, capture: String? = nil, origin: BridgeOrigin? = nil) {
        self.acceptTypes = acceptTypes
        self.allowsMultiple = allowsMultiple
        self.capture = capture
        self.origin = origin
    }
}
