import Foundation
import HybridEngine

/// The progress bar of a view (``HybridWebViewConfiguration/progress``): the ``ProgressModel``
/// fed with the page's load events, and a ticker that moves the bar while the model asks for it.
@MainActor
final class ProgressFeature: ViewFeature {
    private var model: ProgressModel
    private var ticker: Task<Void, Never>?
    private weak var view: HybridWebView?

    init(options: ProgressModel.Options) { model = ProgressModel(options: options) }

    func attach(to view: HybridWebView) { self.view = view }

    func viewDidReport(_ event: ViewEvent) {
        guard let now = view?.now else { return }
        switch event {
        case .engine(.loadStarted): advance(model.start(at: now))
        case .engine(.loadFinished): advance(model.finish(at: now))
        case .engine(.loadFailed(_, _, let cancelled)): advance(model.fail(cancelled: cancelled, at: now))
        case .engine(.progressChanged(let fraction)): advance(model.engineProgress(fraction, at: now))
        case .closing: ticker?.cancel()
        default: break
        }
    }

    func update(_ state: inout HybridWebView.State) { state.progress = model.value }

    private func advance(_ value: LoadProgress?) {
        guard value != nil, let view else { return }
        view.refreshState()
        guard model.needsTicks, ticker == nil else { return }
        ticker = Task { [weak self] in
            while let self, let view = self.view, !view.isClosed, self.model.needsTicks {
                try? await Task.sleep(nanoseconds: 16_000_000)
                if self.model.tick(at: view.now) != nil { view.refreshState() }
            }
            self?.ticker = nil
        }
    }
}
