import Foundation

/// What a view knows of the page it shows beyond what the engine reports: the page as it last
/// loaded well (for recovery and the blank-page probe), a load that failed (whose error page must
/// not count as the page), a title the page set through the bridge and a back navigation under
/// way. Owned by ``HybridWebView``; every change to it is made here.
struct PageRecord {
    /// The URL of the page as it last finished loading.
    private(set) var lastURL: URL?
    /// The title of the page as it last loaded well.
    private(set) var lastGoodTitle: String?
    /// A title the page set through the bridge (`navigation.setTitle`), until its next document.
    private(set) var titleOverride: String?
    /// A back navigation is under way (the text size is reset when it finishes).
    private(set) var backNavigationPending = false
    /// A load that failed: WebKit then shows its own error page for the same URL.
    private var failedURL: URL?

    /// A back navigation started (the app's, or the engine's back-forward load).
    mutating func backNavigationBegan() { backNavigationPending = true }

    /// The page set its title through the bridge.
    mutating func setTitle(_ title: String) { titleOverride = title }

    /// A new document committed: its own title arrives later; a bridge title belonged to the old one.
    mutating func committed(showingErrorPage: Bool) {
        titleOverride = nil
        if !showingErrorPage { lastGoodTitle = nil }
    }

    /// The document's title changed.
    mutating func titleChanged(_ title: String?, showingErrorPage: Bool, hasNavigated: Bool) {
        if let title, !title.isEmpty, !showingErrorPage, hasNavigated { lastGoodTitle = title }
    }

    /// What finishing a load meant.
    struct Finish {
        /// A back navigation ended with it.
        var endedBackNavigation: Bool
        /// It was the engine's error page for a load that failed.
        var isErrorPage: Bool
    }

    /// A load finished at `url` with `title`.
    mutating func finished(_ url: URL?, title: String?, showingErrorPage: Bool) -> Finish {
        if !showingErrorPage {
            lastURL = url ?? lastURL
            if let title { lastGoodTitle = title }
        }
        let finish = Finish(endedBackNavigation: backNavigationPending, isErrorPage: url != nil && url == failedURL)
        backNavigationPending = false
        failedURL = nil
        return finish
    }

    /// A load failed at `url`.
    mutating func failed(_ url: URL?) { failedURL = url }
}
