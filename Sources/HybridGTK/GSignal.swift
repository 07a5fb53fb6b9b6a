import CHybridGTK
import CWebKitGTK
import HybridCore

/// A Swift closure kept alive for a GObject signal connection.
///
/// The connection owns one retain of the box; GLib's destroy notify releases it when the signal
/// is disconnected or the object is finalized, so a callback can never reach a freed box.
final class SignalBox<Handler> {
    let handler: Handler
    init(_ handler: Handler) { self.handler = handler }
}

/// One connected signal; ``disconnect()`` is idempotent and must run on the main thread.
struct SignalConnection {
    let instance: gpointer
    let id: gulong

    func disconnect() {
        if g_signal_handler_is_connected(instance, id) != 0 {
            g_signal_handler_disconnect(instance, id)
        }
    }
}

private let releaseBox: GClosureNotify = { data, _ in
    guard let data else { return }
    Unmanaged<AnyObject>.fromOpaque(data).release()
}

/// A `@convention(c)` signal callback as the untyped pointer `connectSignal` and
/// `hk_signal_connect` take.
func signalThunk<T>(_ function: T) -> UnsafeRawPointer { unsafeBitCast(function, to: UnsafeRawPointer.self) }

/// Connects `thunk` (a `@convention(c)` function whose last parameter is the box) to `signal`.
func connectSignal<Handler>(
    _ instance: gpointer, _ signal: String, thunk: UnsafeRawPointer, handler: Handler, after: Bool = false
) -> SignalConnection {
    let box = Unmanaged.passRetained(SignalBox(handler) as AnyObject).toOpaque()
    let id = hk_signal_connect(instance, signal, thunk, box, releaseBox, after ? 1 : 0)
    return SignalConnection(instance: instance, id: id)
}

/// Recovers the handler in a signal thunk.
func signalHandler<Handler>(_ data: gpointer?, as _: Handler.Type) -> Handler? {
    guard let data else { return nil }
    return (Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as? SignalBox<Handler>)?.handler
}

extension GError {
    /// The error as HybridKit's typed error.
    var hybridError: HybridError {
        let domainName = g_quark_to_string(domain).map { String(cString: $0) } ?? "glib"
        let text = message.map { String(cString: $0) } ?? "unknown error"
        return .engine(.native(domain: domainName, code: Int(code), message: text))
    }
}

/// Takes ownership of a `GError*` out-parameter: converts and frees it.
func consumeGError(_ error: UnsafeMutablePointer<GError>?) -> HybridError? {
    guard let error else { return nil }
    defer { g_error_free(error) }
    return error.pointee.hybridError
}

/// Converts a `gchar*` that the caller owns (transfer full) to a String and frees it.
func consumeGString(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
    guard let pointer else { return nil }
    defer { g_free(pointer) }
    return String(cString: pointer)
}

/// Values from C (raw pointers) carried into main-actor code on the thread they arrived on.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Runs `body` isolated to the main actor with values from a C callback. GLib delivers signals
/// and async results on the main thread (the thread that runs the default main context).
func onMain<Captured, Result: Sendable>(_ captured: Captured, _ body: @MainActor (Captured) -> Result) -> Result {
    let transfer = Unchecked(captured)
    return MainActor.assumeIsolated { body(transfer.value) }
}
