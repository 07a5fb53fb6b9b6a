import Foundation

/// Every timing and guessing rule the engines need, in one place, each with the reason it exists.
///
/// The engine contract (``ContractEngine``) and the drivers read these; none of them keeps a
/// private copy. A value here is a measured or documented behaviour of an engine, not a
/// preference: change it with a measurement.
public enum EngineHeuristics {
    /// How long a script call's failure waits before it reaches the caller (50 ms).
    ///
    /// When the content process dies, WebKit fails pending script calls with a generic error
    /// *before* it reports the termination. Waiting a moment lets the termination fail the call
    /// first, with the reason a caller can act on (`contentProcessTerminated`). A call that
    /// succeeds is never held.
    public static let terminationGrace: TimeInterval = 0.050

    /// The longest a view's own navigation waits behind something the page is owed (1 s).
    ///
    /// On Blink a navigation the app starts waits for a page navigation Chromium will abandon
    /// (a scheme it cannot load) to fail, and for a bridge reply still travelling to the old
    /// document; neither may hold it longer than this (a doomed navigation the page replaced is
    /// never reported failed; a slow call must not delay a page the app loads).
    public static let heldNavigationLimit: TimeInterval = 1.0

    /// How often a cookie store without change events is read to detect changes (100 ms).
    ///
    /// The DevTools protocol has no cookie event, so Blink's store is compared with its last
    /// reading this often while someone observes; changes within one interval are one notification
    /// (the engine lacks ``EngineCapabilities/cookieChangeEvents``).
    public static let cookiePollInterval: TimeInterval = 0.100

    /// Whether a request is the browser's own icon fetch (`/favicon.ico`, a `<link rel=icon>`),
    /// which is blocked: Chromium makes it for a tab strip a view does not have, WebKit makes no
    /// such request, and it must reach neither the app's scheme handlers (a package would send
    /// it to the network as a file it lacks) nor the network.
    ///
    /// Chromium gives it the resource type `Other` (a page's images are `Image`, its prefetches
    /// `Fetch`) and an `Accept` header asking for an image.
    /// - Parameters:
    ///   - resourceType: The engine's resource type for the request (`Other`, `Image`, …).
    ///   - accept: The request's `Accept` header, if any.
    /// - Returns: `true` for the browser's icon fetch.
    public static func isBrowserIconRequest(resourceType: String?, accept: String?) -> Bool {
        resourceType == "Other" && accept?.hasPrefix("image/") == true
    }

    /// MIME types, beyond every `text/`, `image/`, `video/` and `audio/` type, that a Chromium
    /// page renders itself (Blink does not say whether it can show a response; WebKit does).
    public static let blinkRenderedMIMETypes: Set<String> = [
        "application/xhtml+xml", "application/xml", "application/json", "application/javascript", "application/pdf",
        "image/svg+xml", "multipart/x-mixed-replace",
    ]

    /// Whether a Chromium page renders `mimeType` itself (``blinkRenderedMIMETypes``).
    /// - Parameter mimeType: A MIME type without parameters, lowercased.
    /// - Returns: `true` when Blink shows it rather than offering it as a download.
    public static func blinkRenders(_ mimeType: String) -> Bool {
        mimeType.hasPrefix("text/") || mimeType.hasPrefix("image/") || mimeType.hasPrefix("video/")
            || mimeType.hasPrefix("audio/") || blinkRenderedMIMETypes.contains(mimeType)
    }

    /// How long one page's request for a new window counts as the same request (0.5 s).
    ///
    /// WebKit may ask twice for one `window.open` (the navigation policy and the create signal);
    /// the container tells its delegate once.
    public static let newWindowRepeatWindow: TimeInterval = 0.5
}
