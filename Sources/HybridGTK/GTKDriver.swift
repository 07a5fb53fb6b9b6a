import CHybridGTK
import CWebKitGTK
import Foundation
import HybridCore

/// A WebKitGTK view under the engine contract: `ContractEngine` over ``GTKDriver``.
public typealias GTKWebEngine = ContractEngine<GTKDriver>

/// The ``EngineDriver`` of a WebKitGTK 6.0 `WebKitWebView`: translation only.
///
/// Every GObject reference it takes is balanced in ``tearDown()``; signal handlers hold boxed
/// closures released by GLib on disconnect; nothing reaches the host after ``tearDown()``.
@MainActor
public final class GTKDriver: EngineDriver {
    /// What WebKitGTK 6.0 can do (``limitations`` says why the rest is missing).
    public static let capabilities: EngineCapabilities = [
        .scriptWorlds, .messageReplies, .schemeRequestBodies, .customSchemeNavigation, .streamedSchemeResponses,
        .userOriginStyleSheets, .documentElementAtDocumentStart, .windowOpenReturnsNull, .perViewMediaPolicy,
        .downloads, .cookieChangeEvents, .crossSiteCookiesWithoutSameSite, .backForwardCache,
        .windowCloseRequests, .permissionPrompts, .fileChoosers, .scriptErrorsInContainerWorld, .byteChannel,
    ]

    /// Why WebKitGTK lacks what it lacks (``WebEngineProvider/limitations``).
    public static let limitations: [EngineCapabilities: String] = [
        .interceptsHTTP: "WebKit never hands http/https requests to a URI scheme handler (nor does WKURLSchemeHandler)",
        .clearsHistory: "WebKitGTK has no call that clears the back-forward list",
        .consoleMessages: "WebKitGTK 6.0 has no console-message signal",
        .requestBodyLoads: "webkit_web_view_load_request sends GET: a request's method and body are dropped",
        .secureCookiesOnLoopbackHTTP: "libsoup stores and sends Secure cookies over https only, loopback included",
        .amendsNavigationRequests: "a WebKit policy decision only uses or ignores the request: a redirect is a cancel and a new load",
        .binaryMessages: "WebKitGTK 2.50 turns a posted typed array into an object of indexed numbers and an ArrayBuffer into {} "
            + "(replies likewise): 1 MB took 10 s, so small byte values cross as base64 and large ones take the byte channel "
            + "(byteChannel: a custom-scheme request or response body)",
    ]

    /// `webkit`: one name per engine everywhere (remote config kinds, `--engine`, health reports, tests).
    public let engineName = "webkit"
    /// ``capabilities``.
    public var capabilities: EngineCapabilities { Self.capabilities }
    /// The contract this driver reports to.
    public weak var host: (any EngineDriverHost)?

    let configuration: EngineConfiguration
    private weak var provider: GTKEngineProvider?
    /// The `WebKitWebView`; valid until ``tearDown()``.
    public let view: UnsafeMutablePointer<WebKitWebView>
    /// The top-level window hosting the view (nil once the view is embedded elsewhere or torn down).
    public private(set) var window: UnsafeMutablePointer<GtkWidget>?
    private let contentManager: OpaquePointer
    private let cancellable: UnsafeMutablePointer<GCancellable>
    private var connections: [SignalConnection] = []
    private var tornDown = false
    /// Where the window was before ``setParked(_:)`` moved it off-screen.
    private var parkedAt: (x: Int32, y: Int32)?

    init(provider: GTKEngineProvider, configuration: EngineConfiguration) throws {
        self.provider = provider
        self.configuration = configuration
        contentManager = webkit_user_content_manager_new()
        cancellable = g_cancellable_new()
        let settings = webkit_settings_new()
        webkit_settings_set_enable_developer_extras(settings, configuration.developerExtras ? 1 : 0)
        webkit_settings_set_media_playback_requires_user_gesture(settings, configuration.media.autoplayWithoutGesture ? 0 : 1)
        // The contract tells the delegate of every window a page asks for, gesture or not.
        webkit_settings_set_javascript_can_open_windows_automatically(settings, 1)
        if let name = configuration.applicationNameForUserAgent {
            webkit_settings_set_user_agent_with_application_details(settings, name, nil)
        }
        webkit_settings_set_media_playback_allows_inline(settings, configuration.media.inlinePlayback ? 1 : 0)
        // getUserMedia exists; every request still goes through the permission policy (deny by default).
        webkit_settings_set_enable_media_stream(settings, 1)
        if configuration.usesMockCaptureDevices { webkit_settings_set_enable_mock_capture_devices(settings, 1) }
        // Sound autoplay is a website policy in WebKitGTK (the default allows only muted media),
        // so the gesture setting alone does not let audible media start.
        let autoplay = configuration.media.autoplayWithoutGesture ? WEBKIT_AUTOPLAY_ALLOW : WEBKIT_AUTOPLAY_ALLOW_WITHOUT_SOUND
        let created = hk_web_view_new(provider.context, provider.session, contentManager, settings, autoplay)
        g_object_unref(UnsafeMutableRawPointer(settings))
        guard let created, let window = gtk_window_new() else {
            g_object_unref(UnsafeMutableRawPointer(contentManager))
            g_object_unref(UnsafeMutableRawPointer(cancellable))
            throw HybridError.engine(.unavailable("WebKitGTK could not create a view"))
        }
        // The view is a floating GtkWidget: sink it so this object owns exactly one reference.
        view = created
        g_object_ref_sink(UnsafeMutableRawPointer(view))
        installUserContent()
        connectSignals()
        connectDataSignals()
        gtk_window_set_default_size(hk_window(window), gint(configuration.viewportSize.width), gint(configuration.viewportSize.height))
        gtk_window_set_child(hk_window(window), hk_widget(view))
        if provider.showsWindows { gtk_window_present(hk_window(window)) }
        self.window = window
    }

    isolated deinit {
        tearDown()
    }

    // MARK: Loading

    /// Loads `request` with `webkit_web_view_load_request`: its headers are sent, but WebKitGTK
    /// always sends a `GET` without a body (no ``EngineCapabilities/requestBodyLoads``).
    public func load(_ request: EngineRequest) {
        let uriRequest = webkit_uri_request_new(request.url.absoluteString)
        if let headers = webkit_uri_request_get_http_headers(uriRequest) {
            for (name, value) in request.headers { soup_message_headers_replace(headers, name, value) }
        }
        webkit_web_view_load_request(view, uriRequest)
        g_object_unref(UnsafeMutableRawPointer(uriRequest))
    }

    /// Loads `html` with `baseURL` as its URL and origin (`webkit_web_view_load_html`).
    public func loadHTML(_ html: String, baseURL: URL?) {
        webkit_web_view_load_html(view, html, baseURL?.absoluteString)
    }

    /// Shows `data` as `url`'s response: HTML as alternate HTML for `url` (so it is in history as
    /// `url`), anything else with `webkit_web_view_load_bytes`.
    public func loadSimulatedResponse(_ data: Data, mimeType: String, encoding: String?, for url: URL) {
        if mimeType == "text/html", let html = String(data: data, encoding: .utf8) {
            // Shown in history and as the document URL exactly as if loaded from `url`.
            webkit_web_view_load_alternate_html(view, html, url.absoluteString, url.absoluteString)
        } else {
            let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            webkit_web_view_load_bytes(view, bytes, mimeType, encoding, url.absoluteString)
            g_bytes_unref(bytes)
        }
    }

    /// Stops the current load.
    public func stopLoading() { webkit_web_view_stop_loading(view) }
    /// Reloads the page; after a content-process crash this starts a new process.
    public func reload() { webkit_web_view_reload(view) }
    /// Goes one entry back, if there is one.
    public func goBack() { webkit_web_view_go_back(view) }
    /// Goes one entry forward, if there is one.
    public func goForward() { webkit_web_view_go_forward(view) }

    // MARK: State

    /// The view's URI; `nil` before the first load.
    public var url: URL? {
        guard let uri = webkit_web_view_get_uri(view) else { return nil }
        return URL(string: String(cString: uri))
    }
    /// The document's title; `nil` when it is empty.
    public var title: String? {
        guard let title = webkit_web_view_get_title(view) else { return nil }
        let text = String(cString: title)
        return text.isEmpty ? nil : text
    }
    /// WebKit is loading a page (`is-loading`).
    public var isLoading: Bool { webkit_web_view_is_loading(view) != 0 }
    /// WebKit's load progress estimate (0...1).
    public var estimatedProgress: Double { webkit_web_view_get_estimated_load_progress(view) }
    /// There is an entry to go back to.
    public var canGoBack: Bool { webkit_web_view_can_go_back(view) != 0 }
    /// There is an entry to go forward to.
    public var canGoForward: Bool { webkit_web_view_can_go_forward(view) != 0 }

    /// WebKit's back-forward list, with the back items turned oldest first.
    public var backForwardList: BackForwardList {
        guard let list = webkit_web_view_get_back_forward_list(view) else { return BackForwardList() }
        func items(_ glist: UnsafeMutablePointer<GList>?) -> [HistoryItem] {
            defer { g_list_free(glist) }
            var result: [HistoryItem] = []
            var node = glist
            while let current = node {
                if let item = HistoryItem(OpaquePointer(current.pointee.data)) { result.append(item) }
                node = current.pointee.next
            }
            return result
        }
        // WebKit lists the back items nearest first; the seam lists them oldest first.
        return BackForwardList(
            back: items(webkit_back_forward_list_get_back_list(list)).reversed(),
            current: HistoryItem(webkit_back_forward_list_get_current_item(list)),
            forward: items(webkit_back_forward_list_get_forward_list(list)))
    }

    // MARK: Scripts

    /// Evaluates `script` in `world` (`webkit_web_view_evaluate_javascript`).
    public func evaluate(_ script: String, in world: ScriptWorld,
                         completion: @escaping @MainActor @Sendable (Result<JSONValue, any Error>) -> Void) {
        GAsyncCall<JSONValue>(finish: { [view] result in
            var error: UnsafeMutablePointer<GError>?
            let value = webkit_web_view_evaluate_javascript_finish(view, result, &error)
            return try JSCConversion.json(from: value, error: error)
        }, completion: completion).start { callback, data in
            webkit_web_view_evaluate_javascript(view, script, -1, world.name, nil, cancellable, callback, data)
        }
    }

    /// Runs `body` as an async function (`webkit_web_view_call_async_javascript_function`); each
    /// argument travels as JSON text and is parsed back into its JavaScript value first thing.
    public func callAsync(_ body: String, arguments: [String: JSONValue], in world: ScriptWorld,
                          completion: @escaping @MainActor @Sendable (Result<JSONValue, any Error>) -> Void) {
        // Arguments travel as JSON strings and are parsed first thing in the function, so any
        // JSON value (not just what GVariant can carry) arrives with its JavaScript type.
        let builder = g_variant_builder_new(g_variant_type_new("a{sv}"))
        var prologue = ""
        for (name, value) in arguments.sorted(by: { $0.key < $1.key }) {
            let entry = g_variant_new_dict_entry(g_variant_new_string(name), g_variant_new_variant(g_variant_new_string(value.jsonText)))
            g_variant_builder_add_value(builder, entry)
            prologue += "\(name) = JSON.parse(\(name));\n"
        }
        let variant = g_variant_builder_end(builder)
        g_variant_builder_unref(builder)
        let source = prologue + body
        GAsyncCall<JSONValue>(finish: { [view] result in
            var error: UnsafeMutablePointer<GError>?
            let value = webkit_web_view_call_async_javascript_function_finish(view, result, &error)
            return try JSCConversion.json(from: value, error: error)
        }, completion: completion).start { callback, data in
            webkit_web_view_call_async_javascript_function(view, source, -1, variant, world.name, nil, cancellable, callback, data)
        }
    }

    // MARK: Cookies, snapshot, process

    /// The provider's shared cookie store (the network session's cookie manager).
    public var cookieStore: any EngineCookieStore {
        provider?.cookieStore ?? GTKCookieStore(session: webkit_web_view_get_network_session(view))
    }

    /// PNG data of the visible region (`webkit_web_view_get_snapshot`); `snapshotFailed` when
    /// WebKit returns no image.
    public func snapshot(completion: @escaping @MainActor @Sendable (Result<Data, any Error>) -> Void) {
        GAsyncCall<Data>(finish: { [view] result in
            var error: UnsafeMutablePointer<GError>?
            guard let texture = webkit_web_view_get_snapshot_finish(view, result, &error) else {
                throw HybridError.engine(.snapshotFailed(consumeGError(error)?.description ?? "no image"))
            }
            defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
            guard let bytes = gdk_texture_save_to_png_bytes(texture) else {
                throw HybridError.engine(.snapshotFailed("PNG encoding failed"))
            }
            defer { g_bytes_unref(bytes) }
            var size: gsize = 0
            guard let pointer = g_bytes_get_data(bytes, &size) else { throw HybridError.engine(.snapshotFailed("empty image")) }
            return Data(bytes: pointer, count: Int(size))
        }, completion: completion).start { callback, data in
            webkit_web_view_get_snapshot(view, WEBKIT_SNAPSHOT_REGION_VISIBLE, WEBKIT_SNAPSHOT_OPTIONS_NONE, cancellable, callback, data)
        }
    }

    /// Kills the web process (`webkit_web_view_terminate_web_process`); WebKit reports it with
    /// `terminatedByClient`.
    public func terminateContentProcess() {
        webkit_web_view_terminate_web_process(view)
    }

    /// Shows or hides the view's window; a parked window is hidden first, then moved back.
    public func setVisible(_ visible: Bool) {
        guard let window else { return }
        // A parked window is unmapped before it moves back, so a page given back never flashes.
        if !visible { gtk_widget_set_visible(window, 0) }
        if let position = parkedAt {
            parkedAt = nil
            hk_window_x11_move(window, position.x, position.y)
        }
        if visible { gtk_widget_set_visible(window, 1) }
    }

    /// On X11 a shown window is moved far off-screen and stays mapped (WebKit tells the page it
    /// is hidden), and showing it again is a move back; elsewhere (Wayland, a window never shown)
    /// it is hidden. Mapping a hidden window again held up the next load by 10–17 ms (the UI
    /// process waits for the web process's first frame); a move back, by a few ms.
    public func setParked(_ parked: Bool) {
        guard let window else { return }
        guard parked else { return setVisible(true) }
        guard parkedAt == nil else { return }
        var x: Int32 = 0, y: Int32 = 0
        if gtk_widget_get_visible(window) != 0, hk_window_x11_position(window, &x, &y) != 0,
           hk_window_x11_move(window, Self.offScreen, Self.offScreen) != 0 {
            parkedAt = (x, y)
        } else {
            gtk_widget_set_visible(window, 0)
        }
    }

    /// Far outside any screen, and still within X11's 16-bit coordinates with the window's size.
    private static let offScreen: Int32 = -30_000

    /// Takes the view out of its own window so a shell can embed it; the driver keeps its reference.
    public func detachFromWindow() -> UnsafeMutablePointer<GtkWidget> {
        if let window {
            gtk_window_set_child(hk_window(window), nil)
            gtk_window_destroy(hk_window(window))
            self.window = nil
            parkedAt = nil
        }
        return hk_widget(view)
    }

    /// Disconnects every signal, cancels WebKit's pending calls, unregisters the message handlers,
    /// destroys the window and releases the view. Idempotent.
    public func tearDown() {
        guard !tornDown else { return }
        tornDown = true
        host = nil
        for connection in connections { connection.disconnect() }
        connections.removeAll()
        g_cancellable_cancel(cancellable)
        for handler in configuration.messageHandlers {
            webkit_user_content_manager_unregister_script_message_handler(contentManager, handler.name, handler.world.name)
        }
        provider?.forget(view)
        if let window {
            gtk_window_set_child(hk_window(window), nil)
            gtk_window_destroy(hk_window(window))
            self.window = nil
        }
        webkit_web_view_try_close(view)
        g_object_unref(UnsafeMutableRawPointer(view))
        g_object_unref(UnsafeMutableRawPointer(contentManager))
        g_object_unref(UnsafeMutableRawPointer(cancellable))
    }

    func append(_ connection: SignalConnection) { connections.append(connection) }
    var contentManagerPointer: OpaquePointer { contentManager }
}

extension ContractEngine where Driver == GTKDriver {
    /// ``GTKDriver/capabilities``.
    public static var webKitCapabilities: EngineCapabilities { GTKDriver.capabilities }
    /// ``GTKDriver/limitations``.
    public static var webKitLimitations: [EngineCapabilities: String] { GTKDriver.limitations }
    /// The `WebKitWebView` (valid until the view closes).
    public var view: UnsafeMutablePointer<WebKitWebView> { driver.view }
    /// The top-level window hosting the view (nil once embedded elsewhere or closed).
    public var window: UnsafeMutablePointer<GtkWidget>? { driver.window }
    /// Takes the view out of its own window so a shell can embed it.
    /// - Returns: The view as a widget, still owned by the driver.
    public func detachFromWindow() -> UnsafeMutablePointer<GtkWidget> { driver.detachFromWindow() }
}

extension HistoryItem {
    init?(_ item: OpaquePointer?) {
        guard let item, let uri = webkit_back_forward_list_item_get_uri(item), let url = URL(string: String(cString: uri)) else {
            return nil
        }
        let title = webkit_back_forward_list_item_get_title(item).map { String(cString: $0) }
        self.init(url: url, title: title?.isEmpty == true ? nil : title)
    }
}
