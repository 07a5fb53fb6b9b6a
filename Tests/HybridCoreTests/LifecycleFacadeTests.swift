import Foundation
import HybridCore
import HybridTesting
import Testing

/// The façade's own policy over an engine that only reports what it is told to.
@Suite("Lifecycle: HybridWebView policy (fake engine)")
@MainActor
struct LifecycleFacadeTests {
    final class Delegate: HybridWebViewDelegate {
        var dialogs: [ScriptDialogCompletion] = []
        var newWindows: [URL] = []
        var whiteScreens: [WhiteScreenEvent] = []
        var decided: [URL] = []
        var closeRequests = 0
        func webViewRequestsClose(_ webView: HybridWebView) { closeRequests += 1 }
        func webView(_ webView: HybridWebView, runDialog completion: ScriptDialogCompletion) { dialogs.append(completion) }
        func webView(_ webView: HybridWebView, requestsNewWindow request: NewWindowRequest) { newWindows.append(request.url) }
        func webView(_ webView: HybridWebView, didDetectWhiteScreen event: WhiteScreenEvent) { whiteScreens.append(event) }
        func webView(_ webView: HybridWebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
            decided.append(action.request.url)
            return .allow
        }
    }


    func make() throws -> (HybridWebView, FakeEngineDriver, Delegate) {
        let provider = FakeEngineProvider()
        let view = try HybridWebView(provider: provider)
        let delegate = Delegate()
        view.delegate = delegate
        return (view, provider.drivers[0], delegate)
    }

    func action(_ url: String, newWindow: Bool = false) -> NavigationAction {
        NavigationAction(request: EngineRequest(url: URL(string: url)!), type: .linkActivated, isMainFrame: true, targetsNewWindow: newWindow)
    }

    @Test func navigationsAreChainedContainerBridgeNewWindowThenApp() async throws {
        let (view, engine, delegate) = try make()
        #expect(await view.engine(view.engine, decidePolicyFor: action("hybridkit-container://retry")) == .cancel)
        #expect(await view.engine(view.engine, decidePolicyFor: action("hybrid://device/info")) == .cancel)
        #expect(await view.engine(view.engine, decidePolicyFor: action("https://m.example.com/new", newWindow: true)) == .cancel)
        #expect(await view.engine(view.engine, decidePolicyFor: action("https://m.example.com/new", newWindow: true)) == .cancel)
        #expect(delegate.newWindows == [URL(string: "https://m.example.com/new")!])  // asked twice, told once
        #expect(await view.engine(view.engine, decidePolicyFor: action("https://m.example.com/page")) == .allow)
        #expect(delegate.decided == [URL(string: "https://m.example.com/page")!])
        view.close()
        #expect(await view.engine(view.engine, decidePolicyFor: action("https://m.example.com/late")) == .cancel)
        #expect(engine.isTornDown)
    }

    @Test func aPageClosingItsWindowAsksTheDelegateToCloseTheContainer() throws {
        let (view, engine, delegate) = try make()
        view.engineRequestsClose(view.engine)
        #expect(delegate.closeRequests == 1)
        #expect(!engine.isTornDown)  // closing is the app's call
        view.close()
        view.engineRequestsClose(view.engine)
        #expect(delegate.closeRequests == 1)
    }

    @Test func dialogsAreShownOnlyWhileTheViewCanShowThem() throws {
        let (view, _, delegate) = try make()
        var answers: [ScriptDialogResult] = []
        func open(_ kind: ScriptDialog.Kind) -> ScriptDialogCompletion {
            let completion = ScriptDialogCompletion(dialog: ScriptDialog(kind: kind, message: "?")) { answers.append($0) }
            view.engine(view.engine, runScriptDialog: completion)
            return completion
        }
        let shown = open(.confirm)
        #expect(delegate.dialogs.count == 1 && !shown.isCompleted)
        view.isInTransition = true
        #expect(answers == [.cancelled])
        _ = open(.prompt)
        #expect(answers == [.cancelled, .cancelled] && delegate.dialogs.count == 1)
        view.isInTransition = false
        _ = open(.alert)
        view.setVisible(false)
        #expect(answers == [.cancelled, .cancelled, .accepted()])
        _ = open(.beforeUnload)
        #expect(answers.last == .accepted())  // a hidden page never traps its container
        view.setVisible(true)
        let last = open(.confirm)
        view.close()
        #expect(last.isCompleted && answers.count == 5)
        #expect(!last.complete(.accepted()))
    }

    @Test func terminationsReloadThenShowTheErrorPage() async throws {
        let (view, engine, delegate) = try make()
        let page = URL(string: "https://m.example.com/page")!
        view.load(page)
        engine.runLoad(page, title: "Page")
        engine.emit(.contentProcessTerminated(.crashed))
        #expect(delegate.whiteScreens.map(\.recovery) == [.reload(after: 0.1)])
        #expect(delegate.whiteScreens.first?.url == page)
        // A loaded machine may run the recovery's timer late.
        #expect(await eventually(.seconds(5)) { engine.calls.last == "reload" })
        engine.emit(.contentProcessTerminated(.exceededMemoryLimit))
        let last = try #require(delegate.whiteScreens.last)
        #expect(last.reason == .contentProcessTerminated(.exceededMemoryLimit) && last.recovery == .showErrorPage && last.url == page)
        #expect(engine.calls.suffix(2) == ["stop", "html"])
        #expect(view.errorPage != nil)
        view.retry()
        #expect(engine.calls.last == "load \(page.absoluteString)")
        #expect(view.errorPage == nil)
    }

    @Test func stateCarriesOneProgressPerNavigation() async throws {
        let (view, engine, _) = try make()
        var progress: [LoadProgress] = []
        let token = view.observe { state in if progress.last != state.progress { progress.append(state.progress) } }
        let page = URL(string: "https://m.example.com/page")!
        view.load(page)
        engine.runLoad(page, title: "Page")
        #expect(await eventually(.seconds(5)) { view.state.progress.isComplete })
        #expect(view.state.url == page && view.state.title == "Page")
        // A second navigation is the barrier: a late second 1.0 of the first comes before it.
        let next = URL(string: "https://m.example.com/next")!
        view.load(next)
        engine.runLoad(next, title: "Next")
        #expect(await eventually(.seconds(5)) { view.state.progress.isComplete && view.state.progress.navigation == 2 })
        #expect(progress.filter { $0.fraction == 1 }.map(\.navigation) == [1, 2])
        token.cancel()
    }
}
