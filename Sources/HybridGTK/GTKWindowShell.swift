#if os(Linux)
import CHybridGTK
import CWebKitGTK
import Foundation
import HybridCore

/// The desktop twin of the view controller an iOS app would use: a GTK 4 window with a header
/// bar (back, forward, reload/stop, close), the page title, a loading spinner and a progress bar
/// under the header — driven by the container's ``ProgressModel`` — hosting one container.
///
/// ```swift
/// try GLibMainLoop.run { @MainActor in
///     let view = try HybridWebView(provider: GTKEngineProvider(), configuration: configuration)
///     let shell = GTKWindowShell(view: view, size: ViewportSize(width: 390, height: 844))
///     view.load(url)
///     await withCheckedContinuation { closed in shell?.onClose = { closed.resume() } }
/// }
/// ```
@MainActor
public final class GTKWindowShell {
    private let window: UnsafeMutablePointer<GtkWidget>
    private let title: UnsafeMutablePointer<GtkWidget>
    private let spinner: UnsafeMutablePointer<GtkWidget>
    private let progress: UnsafeMutablePointer<GtkWidget>
    private let back: UnsafeMutablePointer<GtkWidget>
    private let forward: UnsafeMutablePointer<GtkWidget>
    private let reload: UnsafeMutablePointer<GtkWidget>
    private weak var engine: GTKWebEngine?
    private weak var container: HybridWebView?
    private var token: ObservationToken?
    private var stateToken: ObservationToken?
    private var boxes: [Unmanaged<ShellAction>] = []
    /// Called once when the user closes the window.
    public var onClose: (@MainActor () -> Void)?

    /// A window of `size` hosting `container`, presented at once.
    ///
    /// Returns `nil` when `container` does not run on WebKitGTK (a Blink view is a window of
    /// Chromium's own) or GTK cannot make the window's widgets.
    public init?(view container: HybridWebView, size: ViewportSize) {
        guard let engine = container.engine as? GTKWebEngine,
              let window = gtk_window_new(), let header = gtk_header_bar_new(), let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0),
              let title = gtk_label_new("HybridKit"), let spinner = gtk_spinner_new(), let progress = gtk_progress_bar_new(),
              let back = gtk_button_new_from_icon_name("go-previous-symbolic"),
              let forward = gtk_button_new_from_icon_name("go-next-symbolic"),
              let reload = gtk_button_new_from_icon_name("view-refresh-symbolic")
        else { return nil }
        self.window = window
        self.title = title
        self.spinner = spinner
        self.progress = progress
        self.back = back
        self.forward = forward
        self.reload = reload
        self.engine = engine
        self.container = container
        gtk_window_set_default_size(hk_window(window), gint(size.width), gint(size.height))
        gtk_label_set_ellipsize(OpaquePointer(title), PANGO_ELLIPSIZE_END)
        gtk_header_bar_set_title_widget(OpaquePointer(header), title)
        gtk_header_bar_pack_start(OpaquePointer(header), back)
        gtk_header_bar_pack_start(OpaquePointer(header), forward)
        gtk_header_bar_pack_start(OpaquePointer(header), reload)
        gtk_header_bar_pack_end(OpaquePointer(header), spinner)
        gtk_window_set_titlebar(hk_window(window), header)
        let view = engine.detachFromWindow()
        gtk_widget_set_vexpand(view, 1)
        gtk_box_append(UnsafeMutableRawPointer(box).assumingMemoryBound(to: GtkBox.self), progress)
        gtk_box_append(UnsafeMutableRawPointer(box).assumingMemoryBound(to: GtkBox.self), view)
        gtk_window_set_child(hk_window(window), box)
        // Through the container, so its progress, back policy and recovery see every navigation.
        connect(back) { $0.goBack() }
        connect(forward) { $0.goForward() }
        connect(reload) { view in view.state.isLoading ? view.stopLoading() : view.reload() }
        let closing = Unmanaged.passRetained(ShellAction { [weak self] _ in self?.closed() })
        boxes.append(closing)
        let closeRequest: @convention(c) (gpointer?, gpointer?) -> gboolean = { _, data in
            guard let data else { return 0 }
            let action = Unmanaged<ShellAction>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { action.run(nil) }
            return 0
        }
        _ = hk_signal_connect(window, "close-request", signalThunk(closeRequest), closing.toOpaque(), nil, 0)
        token = engine.observe { [weak self] event in self?.update(event) }
        stateToken = container.observe { [weak self] state in self?.show(state.progress) }
        update(.loadingChanged(engine.isLoading))
        gtk_window_present(hk_window(window))
    }

    private func connect(_ button: UnsafeMutablePointer<GtkWidget>, _ action: @escaping @MainActor (HybridWebView) -> Void) {
        let box = Unmanaged.passRetained(ShellAction { [weak self] _ in
            if let container = self?.container { action(container) }
        })
        boxes.append(box)
        let clicked: @convention(c) (gpointer?, gpointer?) -> Void = { _, data in
            guard let data else { return }
            let action = Unmanaged<ShellAction>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { action.run(nil) }
        }
        _ = hk_signal_connect(button, "clicked", signalThunk(clicked), box.toOpaque(), nil, 0)
    }

    private func update(_ event: EngineEvent) {
        guard let engine else { return }
        switch event {
        case .titleChanged(let text):
            gtk_label_set_text(OpaquePointer(title), text ?? engine.url?.absoluteString ?? "")
        case .loadingChanged(let loading):
            loading ? gtk_spinner_start(OpaquePointer(spinner)) : gtk_spinner_stop(OpaquePointer(spinner))
            gtk_button_set_icon_name(UnsafeMutableRawPointer(reload).assumingMemoryBound(to: GtkButton.self), loading ? "process-stop-symbolic" : "view-refresh-symbolic")
        case .backForwardChanged(let canGoBack, let canGoForward):
            gtk_widget_set_sensitive(back, canGoBack ? 1 : 0)
            gtk_widget_set_sensitive(forward, canGoForward ? 1 : 0)
        default:
            break
        }
        gtk_widget_set_sensitive(back, engine.canGoBack ? 1 : 0)
        gtk_widget_set_sensitive(forward, engine.canGoForward ? 1 : 0)
    }

    /// The container's progress: it never goes backwards within a navigation and ends at 1 once.
    private func show(_ value: LoadProgress) {
        gtk_progress_bar_set_fraction(OpaquePointer(progress), value.fraction)
        gtk_widget_set_visible(progress, value.isComplete ? 0 : 1)
    }

    private func closed() {
        let handler = onClose
        onClose = nil
        handler?()
    }

    /// Closes the window (the engine view is closed by its owner).
    public func close() {
        token?.cancel()
        stateToken?.cancel()
        gtk_window_destroy(hk_window(window))
        for box in boxes { box.release() }
        boxes.removeAll()
    }
}

/// A button's action, boxed for a signal's user data.
private final class ShellAction {
    let run: @MainActor (Any?) -> Void
    init(_ run: @escaping @MainActor (Any?) -> Void) { self.run = run }
}
#endif
