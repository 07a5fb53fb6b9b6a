#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// DevTools events translated into ``EngineEvent``s, dialogs and process termination.
extension BlinkDriver {
    /// An event on this view's session.
    func handle(_ method: String, _ params: JSONValue) {
        guard !isTornDown else { return }
        switch method {
        case "Fetch.requestPaused": requestPaused(params)
        case "Runtime.bindingCalled": bindingCalled(params)
        case "Runtime.executionContextCreated":
            if let context = params["context"] {
                executionContextCreated(context)
                noteContextOrigin(context)
            }
        case "Runtime.executionContextDestroyed":
            if let id = params.int("executionContextId") {
                executionContextDestroyed(id)
                contextOrigins[id] = nil
            }
        case "Runtime.executionContextsCleared":
            worldContexts.removeAll()
            contextOrigins.removeAll()
        case "Runtime.exceptionThrown": exceptionThrown(params)
        case "Runtime.consoleAPICalled": consoleCalled(params)
        case "Network.requestWillBeSent": requestWillBeSent(params)
        case "Network.loadingFailed": loadingFailed(params)
        case "Network.loadingFinished", "Network.responseReceived": documentRequests[params.string("requestId") ?? ""] = nil
        case "Page.frameRequestedNavigation": navigationRequested(params)
        case "Page.frameNavigated":
            frameOriginReported(params["frame"] ?? .null)
            frameNavigated(params["frame"] ?? .null)
        case "Page.fileChooserOpened": fileChooserOpened(params)
        case "Page.frameAttached": if let id = params.string("frameId") { knownFrames.insert(id) }
        case "Page.frameDetached": frameDetached(params)
        case "Page.navigatedWithinDocument":
            if params.string("frameId") == targetID, let url = params.string("url").flatMap(URL.init(string:)) {
                currentURL = url
                report(.urlChanged(url))
                refreshHistory()
            }
        case "Page.lifecycleEvent":
            if params.string("frameId") == targetID, params.string("name") == "DOMContentLoaded" { setProgress(0.7) }
        case "Page.frameStoppedLoading": if params.string("frameId") == targetID { mainFrameStopped() }
        case "Page.javascriptDialogOpening": dialogOpening(params)
        case "Page.windowOpen": windowOpenRequested(params)
        case "Page.frameStartedLoading": if params.string("frameId") == targetID { mainFrameStarted() }
        case "Inspector.targetCrashed": rendererCrashed()
        default: break
        }
    }

    /// Browser-level news about this view's target (or a window it opened).
    func handleTargetEvent(_ method: String, _ params: JSONValue) {
        // Target.targetCrashed is not used: it can arrive after a reload already revived the
        // page; Inspector.targetCrashed on the session is in order with everything else.
        guard !isTornDown else { return }
        if method == "Target.targetDestroyed" { return targetDestroyed(params.string("targetId")) }
        guard let info = params["targetInfo"] else { return }
        if info.string("type") == "iframe" { return iframeTargetReported(info) }
        switch method {
        case "Target.targetInfoChanged" where info.string("targetId") == targetID:
            titleReported(info.string("title"), url: info.string("url"))
        case "Target.targetCreated" where info.string("openerId") == targetID && info.string("targetId") != targetID:
            popupOpened(info)
        default: break
        }
    }

    // MARK: Loading

    private func requestWillBeSent(_ params: JSONValue) {
        guard params.string("type") == "Document", let text = params["request"]?.string("url") else { return }
        if params["hasUserGesture"] != nil { documentGestures[text] = params.flag("hasUserGesture") }
        guard params.string("frameId") == targetID, let url = URL(string: text), let id = params.string("requestId") else { return }
        documentRequests[id] = url
        if params["redirectResponse"] != nil {
            report(.loadRedirected(url))
        } else {
            mainFrameStarted()
            report(.loadStarted(url))
        }
    }

    /// Remembers why a navigation was asked for; a navigation to a scheme Chromium does not load
    /// itself (`hybrid://`, `tel:`, app links) never reaches Fetch, so the delegate is asked here.
    private func navigationRequested(_ params: JSONValue) {
        guard let text = params.string("url"), let url = URL(string: text) else { return }
        let isMainFrame = params.string("frameId") == targetID
        if isMainFrame { navigationReasons[text] = params.string("reason") }
        guard !Self.loadableSchemes.contains(url.scheme?.lowercased() ?? ""),
              configuration.schemeHandlers[url.scheme?.lowercased() ?? ""] == nil
        else { return }
        if isMainFrame { navigationWillBeAbandoned(text) }
        let type: NavigationType = switch params.string("reason") {
        case "anchorClick": .linkActivated
        case "formSubmissionGet", "formSubmissionPost": .formSubmitted
        default: .other
        }
        host?.navigationAnnounced(NavigationAction(request: EngineRequest(url: url), type: type, isMainFrame: isMainFrame))
    }

    /// The main frame started loading (a request, or a page restored without one).
    private func mainFrameStarted() {
        guard !loading else { return }
        loading = true
        progress = 0
        report(.loadingChanged(true))
        setProgress(0.1)
    }

    private func loadingFailed(_ params: JSONValue) {
        guard let id = params.string("requestId"), let url = documentRequests.removeValue(forKey: id) else { return }
        documentRequestFailed(url)
        var message = params.string("errorText") ?? "load failed"
        var cancelled = params.flag("canceled") || message == "net::ERR_ABORTED"
        if let scheme = url.scheme?.lowercased(), !Self.loadableSchemes.contains(scheme) {
            // Chromium hands schemes it cannot load to the OS and reports the load aborted; say why
            // the load went nowhere.
            message += ": Blink cannot navigate to \(scheme): URLs"
            // A scheme the container serves was meant to load here: that is a failure of the load,
            // not a cancellation (a scheme handed to the app is cancelled on purpose).
            if configuration.schemeHandlers[scheme] != nil { cancelled = false }
        }
        report(.loadFailed(url, message: message, cancelled: cancelled))
        if loading {
            loading = false
            report(.loadingChanged(false))
        }
    }

    private func frameNavigated(_ frame: JSONValue) {
        guard frame.string("id") == targetID, frame.string("parentId") == nil,
              let url = frame.string("url").flatMap(URL.init(string:))
        else { return }
        currentURL = url
        report(.urlChanged(url))
        report(.loadCommitted(url))
        setProgress(0.3)
        refreshHistory()
    }

    /// The main frame stopped (loaded, failed or stopped): refresh the list first, so a caller
    /// that waits for `loadFinished` sees the new back-forward state.
    private func mainFrameStopped() {
        guard loading else { return }
        if showsOnlyBaselessDocuments, let scheme = currentURL?.scheme, !["data", "about"].contains(scheme) {
            // Only once the page has loaded: reset at its commit was sometimes overtaken by the
            // entry being added. Sent before the list is read again, so this load reports it clean.
            showsOnlyBaselessDocuments = false
            fire("Page.resetNavigationHistory")
        }
        refreshHistory { [weak self] in
            guard let self, self.loading else { return }
            self.loading = false
            self.setProgress(1)
            self.report(.loadFinished(self.currentURL))
            self.report(.loadingChanged(false))
        }
    }

    func setProgress(_ value: Double) {
        guard value != progress else { return }
        progress = value
        report(.progressChanged(value))
    }

    private func titleReported(_ reported: String?, url: String?) {
        // Chromium reports the URL (without its scheme) as the title of an untitled page.
        var title = reported
        if let text = title, Self.isPlaceholderTitle(text, url: url) { title = nil }
        guard title != currentTitle else { return }
        currentTitle = title
        report(.titleChanged(title))
    }

    /// The main frame's document changed its title (the title watcher): an empty title is none.
    func pageTitleChanged(_ title: String) {
        let title = title.isEmpty ? nil : title
        guard title != currentTitle else { return }
        currentTitle = title
        report(.titleChanged(title))
    }

    /// Chromium titles an untitled page with its URL, without the scheme for http(s).
    static func isPlaceholderTitle(_ title: String, url: String?) -> Bool {
        guard !title.isEmpty, let url else { return true }
        if title == url { return true }
        if let separator = url.range(of: "://") { return title == String(url[separator.upperBound...]) }
        return false
    }

    /// Reads the back-forward list (Page.getNavigationHistory), then calls `then`.
    func refreshHistory(then: (@MainActor () -> Void)? = nil) {
        whenAttached { [weak self] session in
            self?.browser.send("Page.getNavigationHistory", session: session) { [weak self] result in
                guard let self else { return }
                if case .success(let value) = result, let entries = value["entries"]?.arrayValue, let index = value.int("currentIndex") {
                    self.historyLoaded(entries, current: index)
                }
                then?()
            }
        }
    }

    private func historyLoaded(_ entries: [JSONValue], current: Int) {
        let items = entries.map { entry -> (id: Int, item: HistoryItem?) in
            let title = entry.string("title").flatMap { Self.isPlaceholderTitle($0, url: entry.string("url")) ? nil : $0 }
            return (entry.int("id") ?? 0, entry.string("url").flatMap(URL.init(string:)).map { HistoryItem(url: $0, title: title) })
        }
        // The initial about:blank of a new target is not part of the view's history.
        let start = items.firstIndex { $0.item?.url.absoluteString != "about:blank" } ?? items.count
        let back = items.indices.filter { $0 >= start && $0 < current }
        let forward = items.indices.filter { $0 > current }
        let list = BackForwardList(
            back: back.compactMap { items[$0].item }, current: items.indices.contains(current) ? items[current].item : nil,
            forward: forward.compactMap { items[$0].item })
        historyEntryIDs = (back.map { items[$0].id }, forward.map { items[$0].id })
        if let title = list.current?.title, title != currentTitle {
            currentTitle = title
            report(.titleChanged(title))
        }
        guard list != history else { return }
        let before = (canGoBack, canGoForward)
        history = list
        if before != (canGoBack, canGoForward) { report(.backForwardChanged(canGoBack: canGoBack, canGoForward: canGoForward)) }
    }

    private func consoleCalled(_ params: JSONValue) {
        let text = (params["args"]?.arrayValue ?? []).map { argument -> String in
            argument["value"].map { $0.stringValue ?? $0.jsonText } ?? argument.string("description") ?? argument.string("type") ?? ""
        }.joined(separator: " ")
        report(.consoleMessage(level: params.string("type") ?? "log", text: text))
    }

    // MARK: Windows, dialogs, crashes

    /// A window the page opened: never shown; the delegate hears of it and opens a container.
    private func popupOpened(_ info: JSONValue) {
        browser.send("Target.closeTarget", ["targetId": .string(info.string("targetId") ?? "")])
    }

    /// `window.open` or a `target=_blank` link (Page.windowOpen, which knows the URL before the new target does).
    private func windowOpenRequested(_ params: JSONValue) {
        guard let url = params.string("url").flatMap(URL.init(string:)) else { return }
        host?.navigationAnnounced(NavigationAction(request: EngineRequest(url: url), type: .other, isMainFrame: true,
                                                   targetsNewWindow: true, isUserGesture: params.flag("userGesture")))
    }

    private func dialogOpening(_ params: JSONValue) {
        let kind: ScriptDialog.Kind = switch params.string("type") {
        case "confirm": .confirm
        case "prompt": .prompt
        case "beforeunload": .beforeUnload
        default: .alert
        }
        let dialog = ScriptDialog(
            kind: kind, message: params.string("message") ?? "", defaultText: kind == .prompt ? params.string("defaultPrompt") : nil,
            pageURL: params.string("url").flatMap(URL.init(string:)) ?? currentURL, pageTitle: currentTitle)
        host?.dialogOpened(dialog) { [browser, sessionID] result in
            var answer: [String: JSONValue] = ["accept": .bool(result != .cancelled)]
            if case .accepted(let text?) = result, kind == .prompt { answer["promptText"] = .string(text) }
            browser.send("Page.handleJavaScriptDialog", answer, session: sessionID)
        }
    }

    private func rendererCrashed() {
        contentProcessDidTerminate(crashRequested ? .terminatedByClient : .crashed)
    }

    /// The renderer is gone: its contexts, its held navigations and its load with it; the host
    /// (which reports each death once) fails the calls and answers the dialogs.
    func contentProcessDidTerminate(_ reason: TerminationReason) {
        guard !isTornDown else { return }
        crashRequested = false
        worldContexts.removeAll()
        // A dead renderer's navigation and replies are gone with it.
        releaseHeldNavigations()
        if loading {
            loading = false
            report(.loadingChanged(false))
        }
        host?.contentProcessTerminated(reason)
    }

    /// The whole browser went away: every view's content is gone; a load starts a new browser.
    func browserExited() {
        contentProcessDidTerminate(crashRequested ? .terminatedByClient : .crashed)
    }

    func report(_ event: EngineEvent) { host?.report(event) }
}
#endif
