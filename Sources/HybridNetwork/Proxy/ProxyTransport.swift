import Foundation
import HybridBase
import HybridHTTP

/// How the request proxy sends one hop: no redirect followed (a 3xx comes back as the hop's
/// response, so the proxy applies that hop's `Set-Cookie` and builds the next request itself),
/// no cookies and no cache of the transport's own, the body counted against a limit as it arrives.
///
/// Two implementations: ``ProxyCurlTransfer`` on Linux (libcurl, whose header callback gives the
/// response's header lines as sent: swift-corelibs-foundation's `HTTPURLResponse` keeps one value
/// of names that differ only in case) and ``ProxySessionTransfer`` on Apple platforms
/// (`URLSession`, the system's HTTP stack there).
protocol ProxyTransport: Sendable {
    /// Runs one hop.
    /// - Parameters:
    ///   - limit: The most body bytes taken; more fails with `payload_too_large`.
    ///   - progress: Upload progress.
    ///   - decide: Called when the response head arrives; without it the body is collected.
    ///   - stop: Called before the transfer is cancelled or failed, to wake a streamed body's
    ///     read that waits for the page (``ProxyBodySource/cancel()``).
    /// - Returns: The head and the collected body (empty when it was streamed).
    /// - Throws: ``NetworkFailure`` (`payload_too_large`, `timeout`, `network_error`, or what
    ///   `decide` failed with), ``ProxyConnectionLost``, or `CancellationError`.
    func run(_ hop: ProxyHop, limit: Int, progress: (@Sendable (ProxyProgress) -> Void)?, decide: ProxyDecision?,
             stop: (@Sendable () -> Void)?) async throws -> (HTTPHead, Data)

    /// Stops what is left; the transport is not used again.
    func invalidate()
}

/// One hop as the proxy asks a ``ProxyTransport`` to send it.
struct ProxyHop: @unchecked Sendable {
    /// The hop's request body.
    enum Body {
        /// None.
        case none
        /// These bytes.
        case bytes(Data)
        /// `size` bytes read from the page as they are sent (``ProxyBodySource/makeStream(deadline:)``).
        case stream(InputStream, size: Int64)
    }

    /// The URL.
    var url: URL
    /// The method, normalized.
    var method: String
    /// The header fields, in order.
    var headers: [(name: String, value: String)]
    /// The body.
    var body: Body
    /// When the whole request's time is up.
    var deadline: Date
    /// The request's own timeout, which a hop that runs out of time reports.
    var timeoutMilliseconds: Int
}

/// What to do with a response's body, decided when its head arrives.
enum ProxyDisposition {
    /// Keep it, and return it when the transfer completes.
    case collect
    /// Hand each piece to the closure as it arrives; the transfer then returns no body. A piece
    /// the closure refuses (throws) stops the transfer with that error.
    case stream(@Sendable (Data) throws -> Void)
    /// Stop: the transfer fails with this reason.
    case fail(NetworkFailure)
}

/// Decides a response's ``ProxyDisposition`` when its head arrives (on the transport's thread).
typealias ProxyDecision = @Sendable (HTTPHead) -> ProxyDisposition

/// The connection broke before any response arrived — typically a kept-alive connection the
/// server had closed, reused. Browsers send the request again on a new connection, once.
struct ProxyConnectionLost: Error {
    /// The transport's description.
    var message: String
}
