import Foundation

/// A reason inside one domain of ``HybridError``: a stable code and a human message.
public protocol HybridFailureReason: Sendable, Equatable, CustomStringConvertible {
    /// A stable, lower-case code for logs and for page authors (`snake_case`).
    var code: String { get }
}

/// The one public error type of HybridKit, with a nested reason per domain.
///
/// Errors that cross the bridge carry a stable string ``code`` page authors can switch on.
/// Each domain's reasons live here in HybridBase, below every module that raises them, so one
/// error type crosses the module boundaries unchanged.
public enum HybridError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The engine (WebKitGTK, WKWebView, Blink) refused or failed an operation.
    case engine(EngineFailure)
    /// A bridge call failed (see `BridgeFailure`).
    case bridge(BridgeFailure)
    /// A network, cookie or request-proxy operation failed.
    case network(NetworkFailure)
    /// An offline package could not be packed, verified, installed or served.
    case package(PackageFailure)
    /// A remote-config document was refused.
    case config(ConfigFailure)
    /// A saved page state could not be taken or given back (``RestoreFailure``).
    case restore(RestoreFailure)

    private var reason: any HybridFailureReason {
        switch self {
        case .engine(let r): r
        case .bridge(let r): r
        case .network(let r): r
        case .package(let r): r
        case .config(let r): r
        case .restore(let r): r
        }
    }

    /// A stable, lower-case code for logs and for page authors.
    public var code: String { reason.code }
    /// The reason's message for people (logs, error pages); unlike ``code`` it may change.
    public var description: String { reason.description }
}

/// Why an engine operation failed.
public enum EngineFailure: HybridFailureReason {
    /// A script threw; `message` is the JavaScript exception's message.
    case javaScript(message: String)
    /// A script's result could not be turned into JSON.
    case resultNotJSON(String)
    /// The web content process died while the operation was pending.
    case contentProcessTerminated(TerminationReason)
    /// The view was closed before the operation completed.
    case closed
    /// A load failed (network error, cancelled, policy).
    case loadFailed(url: String, message: String)
    /// A snapshot could not be taken.
    case snapshotFailed(String)
    /// The cookie store refused an operation.
    case cookies(String)
    /// The engine cannot start (missing library, no display).
    case unavailable(String)
    /// A raw error from the engine's libraries (GLib `GError`, `NSError`).
    case native(domain: String, code: Int, message: String)
    /// The app asked to prerender a page the container will not load hidden (a foreign origin
    /// the app did not allow, a scheme it cannot prerender); nothing was loaded.
    case prerenderRefused(url: String, reason: String)

    /// A stable, lower-case code for logs and for page authors (`js_exception`, `closed`, ...).
    public var code: String {
        switch self {
        case .javaScript: "js_exception"
        case .resultNotJSON: "result_not_json"
        case .contentProcessTerminated: "engine_terminated"
        case .closed: "closed"
        case .loadFailed: "load_failed"
        case .snapshotFailed: "snapshot_failed"
        case .cookies: "cookies"
        case .unavailable: "engine_unavailable"
        case .native: "engine"
        case .prerenderRefused: "prerender_refused"
        }
    }

    /// A message for people, with the exception, URL or native error concerned.
    public var description: String {
        switch self {
        case .javaScript(let message): "JavaScript exception: \(message)"
        case .resultNotJSON(let text): "script result is not JSON: \(text)"
        case .contentProcessTerminated(let reason): "web content process terminated (\(reason))"
        case .closed: "the web view was closed"
        case .loadFailed(let url, let message): "load of \(url) failed: \(message)"
        case .snapshotFailed(let message): "snapshot failed: \(message)"
        case .cookies(let message): "cookie store: \(message)"
        case .unavailable(let message): "engine unavailable: \(message)"
        case .native(let domain, let code, let message): "\(domain) \(code): \(message)"
        case .prerenderRefused(let url, let reason): "prerender of \(url) refused: \(reason)"
        }
    }
}
