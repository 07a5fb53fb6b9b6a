import CHybridGTK
import CWebKitGTK
import Foundation
import HybridCore

/// WebKitGTK's process pool and data store: one `WebKitWebContext` and one
/// `WebKitNetworkSession` shared by every view it makes, so views share cookies and processes
/// (the twin of a shared `WKProcessPool` + `WKWebsiteDataStore`).
@MainActor
public final class GTKEngineProvider: WebEngineProvider {
    /// `webkit`: one name per engine everywhere (remote config kinds, `--engine`, health reports, tests).
    public let engineName = "webkit"
    /// ``GTKDriver/capabilities``.
    public let capabilities = GTKDriver.capabilities
    /// ``GTKDriver/limitations``.
    public let limitations = GTKDriver.limitations

    let context: OpaquePointer  // WebKitWebContext*
    let session: OpaquePointer  // WebKitNetworkSession*
    /// Whether the session keeps its data in memory or in a directory.
    public let sessionKind: EngineSessionKind
    /// Whether views get a visible host window (tests and headless runs still map it under Xvfb).
    public var showsWindows: Bool

    private var registeredSchemes: Set<String> = []
    /// Live views by their `WebKitWebView*`, for routing custom-scheme requests to their handler.
    private var views: [UnsafeMutableRawPointer: Weak<GTKDriver>] = [:]
    /// The open view whose `WebKitWebView*` is `view`.
    func driver(for view: UnsafeMutablePointer<WebKitWebView>) -> GTKDriver? { views[UnsafeMutableRawPointer(view)]?.value }
    private lazy var sharedCookieStore = GTKCookieStore(session: session)

    /// - Parameters:
    ///   - session: ephemeral (memory only) or persistent in a directory (cookies survive restarts).
    ///   - showsWindows: present each view in its own top-level window (needed for snapshots).
    /// - Throws: `HybridError.engine(.unavailable)` when GTK cannot open a display.
    public init(session: EngineSessionKind = .ephemeral, showsWindows: Bool = true) throws {
        try GLibMainLoop.bootstrap()
        sessionKind = session
        self.showsWindows = showsWindows
        context = hk_web_context_new()
        switch session {
        case .ephemeral:
            self.session = webkit_network_session_new_ephemeral()
        case .persistent(let directory):
            let data = directory.appendingPathComponent("data").path
            let cache = directory.appendingPathComponent("cache").path
            try? FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            self.session = webkit_network_session_new(data, cache)
            let manager = webkit_network_session_get_cookie_manager(self.session)
            webkit_cookie_manager_set_persistent_storage(
                manager, directory.appendingPathComponent("cookies.sqlite").path, WEBKIT_COOKIE_PERSISTENT_STORAGE_SQLITE)
        }
        webkit_cookie_manager_set_accept_policy(
            webkit_network_session_get_cookie_manager(self.session), WEBKIT_COOKIE_POLICY_ACCEPT_NO_THIRD_PARTY)
        connectDownloads()
    }

    isolated deinit {
        g_object_unref(UnsafeMutableRawPointer(context))
        g_object_unref(UnsafeMutableRawPointer(session))
    }

    /// The network session's cookie manager, shared by every view.
    public var cookieStore: any EngineCookieStore { sharedCookieStore }

    /// A new view in this provider's context and session, with `configuration`'s custom schemes
    /// registered on the context.
    /// - Throws: `HybridError.engine(.unavailable)` when WebKitGTK cannot create the view.
    public func makeEngine(_ configuration: EngineConfiguration) throws -> any WebEngine {
        try makeGTKEngine(configuration)
    }

    /// Like ``makeEngine(_:)`` with the concrete type (for the window shell and tests).
    public func makeGTKEngine(_ configuration: EngineConfiguration) throws -> GTKWebEngine {
        for scheme in configuration.schemeHandlers.keys { registerScheme(scheme) }
        let driver = try GTKDriver(provider: self, configuration: configuration)
        views[UnsafeMutableRawPointer(driver.view)] = Weak(driver)
        return GTKWebEngine(driver: driver, messageHandlers: configuration.messageHandlers)
    }

    func forget(_ view: UnsafeMutablePointer<WebKitWebView>) {
        views[UnsafeMutableRawPointer(view)] = nil
    }

    /// Number of views this provider made that are still open.
    public var liveViewCount: Int { views.values.filter { $0.value != nil }.count }

    /// Custom schemes are registered once per context; each request is routed to the handler of
    /// the view that made it. The scheme is secure (a secure context) and CORS-enabled (fetch/XHR work).
    private func registerScheme(_ scheme: String) {
        guard registeredSchemes.insert(scheme).inserted else { return }
        let security = webkit_web_context_get_security_manager(context)
        webkit_security_manager_register_uri_scheme_as_secure(security, scheme)
        webkit_security_manager_register_uri_scheme_as_cors_enabled(security, scheme)
        let box = Unmanaged.passRetained(SignalBox<Weak<GTKEngineProvider>>(Weak(self))).toOpaque()
        webkit_web_context_register_uri_scheme(context, scheme, { request, data in
            guard let request, let data else { return }
            onMain((request, data)) { request, data in
                let box = Unmanaged<SignalBox<Weak<GTKEngineProvider>>>.fromOpaque(data).takeUnretainedValue()
                box.handler.value?.route(request)
            }
        }, box, { data in
            guard let data else { return }
            Unmanaged<SignalBox<Weak<GTKEngineProvider>>>.fromOpaque(data).release()
        })
    }

    private func route(_ request: OpaquePointer) {
        let scheme = webkit_uri_scheme_request_get_scheme(request).map { String(cString: $0) } ?? ""
        guard let view = webkit_uri_scheme_request_get_web_view(request),
              let driver = views[UnsafeMutableRawPointer(view)]?.value,
              let handler = driver.configuration.schemeHandlers[scheme]
        else {
            GTKSchemeTask.fail(request, status: 404, message: "no handler for \(scheme): in this view")
            return
        }
        GTKSchemeTask(request: request).run(with: handler)
    }
}

/// A weak reference usable as a dictionary value.
final class Weak<T: AnyObject> {
    weak var value: T?
    init(_ value: T) { self.value = value }
}
