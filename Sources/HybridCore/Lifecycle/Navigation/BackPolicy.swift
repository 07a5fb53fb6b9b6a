import Foundation
import HybridEngine

/// What the app's back button does: go back in the page while it has somewhere to go, else
/// close the container.
public struct BackPolicy: Sendable, Equatable {
    /// What the back button should do now.
    public enum Decision: Sendable, Equatable {
        /// Go back one entry in the page's history.
        case goBack
        /// Close the container (pop the screen).
        case close
    }

    /// Treat a back list of exactly one entry as none. Pages that redirect on arrival (a
    /// landing URL that forwards to the real page with `location.href`) leave one entry behind
    /// them; going back to it would just forward again.
    public var treatsSingleEntryAsNone: Bool

    /// A policy that goes back whenever the page has an entry to go back to (unless told to skip a
    /// single redirect entry).
    public init(treatsSingleEntryAsNone: Bool = false) {
        self.treatsSingleEntryAsNone = treatsSingleEntryAsNone
    }

    /// The decision for `history`. Blank documents (the container's own placeholder pages)
    /// never count as somewhere to go back to.
    public func decide(_ history: BackForwardList) -> Decision {
        let entries = history.back.filter { !Self.isPlaceholder($0.url) }.count
        if entries == 0 { return .close }
        if entries == 1 && treatsSingleEntryAsNone { return .close }
        return .goBack
    }

    static func isPlaceholder(_ url: URL) -> Bool {
        url.scheme?.lowercased() == "about" || url.absoluteString.isEmpty
    }
}
