#if canImport(UIKit) && canImport(WebKit)
import Foundation
import HybridCore
import HybridWK
import UIKit
import WebKit

/// A screen that hosts one ``HybridWebView`` on WKWebView: the page's title, a progress bar,
/// back/close items that follow the back policy (back through the page's history, else close
/// the screen), script dialogs as alerts, and white-screen recovery when the screen reappears.
///
/// Policy stays in HybridCore: this class shows what `HybridWebView` decides.
///
/// ```swift
/// let provider = WKEngineProvider()
/// let screen = try HybridViewController(provider: provider, url: URL(string: "https://m.example.com/")!)
/// navigationController.pushViewController(screen, animated: true)
/// ```
@MainActor
open class HybridViewController: UIViewController, HybridWebViewDelegate {
    /// The container this screen shows.
    public let hybridWebView: HybridWebView
    /// Navigation decisions, new windows, white screens and load failures go on to this delegate;
    /// dialogs and closing are handled by the screen.
    public weak var pageDelegate: (any HybridWebViewDelegate)?
    /// Title shown until the page has one.
    public var placeholderTitle: String?

    /// The load progress bar under the navigation bar, hidden when a load completes. Restyle it
    /// freely; the screen sets only its frame, progress and visibility.
    public let progressView = UIProgressView(progressViewStyle: .bar)
    private lazy var backItem = UIBarButtonItem(
        title: nil, image: UIImage(systemName: "chevron.backward"),
        primaryAction: UIAction { [weak self] _ in MainActor.assumeIsolated { self?.backTapped() } }, menu: nil)
    private lazy var closeItem = UIBarButtonItem(
        systemItem: .close, primaryAction: UIAction { [weak self] _ in MainActor.assumeIsolated { self?.closeContainer() } },
        menu: nil)
    private let dialogs = HybridDialogPresenter()
    private var stateObservation: ObservationToken?
    private var initialURL: URL?
    private var shownCanGoBack: Bool?

    /// Hosts an existing container (made with a ``WKEngineProvider``).
    public init(hybridWebView: HybridWebView) {
        self.hybridWebView = hybridWebView
        super.init(nibName: nil, bundle: nil)
        hybridWebView.delegate = self
    }

    /// Makes a container on `provider` and loads `url` once the screen's view loads.
    /// - Throws: what the provider throws when it cannot make a view.
    public convenience init(
        provider: WKEngineProvider, configuration: HybridWebViewConfiguration = HybridWebViewConfiguration(), url: URL
    ) throws {
        self.init(hybridWebView: try HybridWebView(provider: provider, configuration: configuration))
        initialURL = url
    }

    /// Not supported: the screen needs a container, which a storyboard cannot provide.
    /// - Returns: nil, always.
    public required init?(coder: NSCoder) { return nil }

    /// The WKWebView to show, when the container runs on WKWebView.
    private var engineView: WKWebView? { (hybridWebView.engine as? WKWebEngine)?.webView }

    // MARK: View lifecycle

    open override func viewDidLoad() {
        super.viewDidLoad()
        if let engineView {
            engineView.frame = view.bounds
            engineView.autoresizingMask = [.flexibleWidth, .flexibleHeight]
            engineView.allowsBackForwardNavigationGestures = true
            view.addSubview(engineView)
        }
        view.addSubview(progressView)
        navigationItem.hidesBackButton = true
        stateObservation = hybridWebView.observe { [weak self] state in self?.show(state) }
        if let initialURL {
            self.initialURL = nil
            hybridWebView.load(initialURL)
        }
    }

    open override func viewDidLayoutSubviews() {
        super.viewDidLayoutSubviews()
        progressView.frame = CGRect(x: 0, y: view.safeAreaInsets.top, width: view.bounds.width, height: 2)
    }

    open override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        // Dialogs that arrive while the screen slides in get their safe default (HybridWebView).
        hybridWebView.isInTransition = animated
        // A content process that died while the screen was away leaves a white page: reload it.
        // The blank-page and liveness probes run when the view becomes visible.
        if hybridWebView.hasNavigated, !hybridWebView.engine.isAlive, hybridWebView.errorPage == nil {
            hybridWebView.reload()
        }
        hybridWebView.setVisible(true)
        updateBackGesture(canGoBack: hybridWebView.state.canGoBack)
    }

    open override func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        hybridWebView.isInTransition = false
    }

    open override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        hybridWebView.isInTransition = true
        dialogs.dismissAll()
        navigationController?.interactivePopGestureRecognizer?.isEnabled = true
    }

    open override func viewDidDisappear(_ animated: Bool) {
        super.viewDidDisappear(animated)
        hybridWebView.isInTransition = false
        hybridWebView.setVisible(false)
    }

    // MARK: State

    /// The state arrives on every progress tick (60 per second while loading): bar items and
    /// the title are touched only when they change.
    private func show(_ state: HybridWebView.State) {
        let shownTitle = state.title ?? placeholderTitle
        if title != shownTitle { title = shownTitle }
        progressView.isHidden = state.progress.isComplete
        progressView.setProgress(Float(state.progress.fraction), animated: !state.progress.isComplete)
        if shownCanGoBack != state.canGoBack {
            shownCanGoBack = state.canGoBack
            navigationItem.leftBarButtonItems = state.canGoBack ? [backItem, closeItem] : [backItem]
            updateBackGesture(canGoBack: state.canGoBack)
        }
    }

    /// While the page has history, the edge swipe goes back in the page (WKWebView's own
    /// gesture) instead of popping the screen.
    private func updateBackGesture(canGoBack: Bool) {
        guard viewIfLoaded?.window != nil else { return }
        navigationController?.interactivePopGestureRecognizer?.isEnabled = !canGoBack
    }

    // MARK: Back and close

    private func backTapped() {
        hybridWebView.handleBackButton()
    }

    /// Pops the screen off its navigation stack, or dismisses it when it was presented.
    open func closeContainer() {
        dialogs.dismissAll()
        if let navigationController, navigationController.viewControllers.count > 1,
           navigationController.viewControllers.last === self {
            navigationController.popViewController(animated: true)
        } else if presentingViewController != nil || navigationController?.presentingViewController != nil {
            (navigationController ?? self).dismiss(animated: true)
        }
    }

    // MARK: HybridWebViewDelegate

    /// Shows the page's dialog as an alert when the screen can present one; otherwise it is
    /// answered with its safe default.
    public func webView(_ webView: HybridWebView, runDialog completion: ScriptDialogCompletion) {
        dialogs.present(completion, from: self)
    }

    /// The back policy, the page (`navigation.close`) or `window.close()` asked to close the
    /// container: the screen closes (``closeContainer()``).
    public func webViewRequestsClose(_ webView: HybridWebView) {
        closeContainer()
    }

    /// Asks ``pageDelegate``; allows the navigation when there is none.
    public func webView(_ webView: HybridWebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        guard let pageDelegate else { return .allow }
        return await pageDelegate.webView(webView, decidePolicyFor: action)
    }

    /// Asks ``pageDelegate``; without one, shows what WebKit can show and cancels the rest.
    public func webView(_ webView: HybridWebView, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy {
        guard let pageDelegate else { return response.canShowMIMEType ? .allow : .cancel }
        return await pageDelegate.webView(webView, decidePolicyFor: response)
    }

    /// Passes the page's new-window request to ``pageDelegate`` (nothing opens without one).
    public func webView(_ webView: HybridWebView, requestsNewWindow request: NewWindowRequest) {
        pageDelegate?.webView(webView, requestsNewWindow: request)
    }

    /// Tells ``pageDelegate`` of a white screen the container detected (and already handled).
    public func webView(_ webView: HybridWebView, didDetectWhiteScreen event: WhiteScreenEvent) {
        pageDelegate?.webView(webView, didDetectWhiteScreen: event)
    }

    /// Tells ``pageDelegate`` of a main-frame load that failed.
    public func webView(_ webView: HybridWebView, didFailLoad failure: LoadFailure) {
        pageDelegate?.webView(webView, didFailLoad: failure)
    }
}
#endif
