import Foundation
import HybridBridge
import HybridBase
import HybridEngine

/// The bridge side of the request proxy: `hybrid.call('proxy', 'request', request, {onProgress})`.
///
/// Register it on the container (``HybridWebViewConfiguration/modules``) together with the
/// page script from ``userScript(policy:)``. Progress reaches the page in order and before the
/// reply; an aborted call (XHR `abort()`, an `AbortSignal`, a timeout, the page going away)
/// cancels the native transfer, mid-upload included.
///
/// ```swift
/// let proxy = RequestProxy(policy: policy, jar: jar) { record in log(record) }
/// configuration.modules.append(ProxyModule(proxy: proxy, allowedOrigins: ["app://m.example.com"]))
/// configuration.engine.userScripts.append(ProxyModule.userScript(policy: policy))
/// ```
public struct ProxyModule: BridgeModule {
    /// `proxy`, the name pages call.
    public static let moduleName = "proxy"
    /// ``moduleName``.
    public let name = ProxyModule.moduleName
    /// The origins whose pages may call the module.
    public let allowedOrigins: [OriginPattern]
    /// The proxy that performs the requests.
    public let proxy: RequestProxy
    /// Where form POST responses are shown (connected by ``HybridWebView``).
    public let documents: ProxyDocumentTarget

    /// A module serving `proxy` to pages of `allowedOrigins`. What those pages can reach is
    /// bounded by the proxy's ``ProxyPolicy/requests`` patterns.
    @MainActor
    public init(proxy: RequestProxy, allowedOrigins: [OriginPattern], documents: ProxyDocumentTarget = ProxyDocumentTarget()) {
        self.proxy = proxy
        self.allowedOrigins = allowedOrigins
        self.documents = documents
    }

    /// The `<meta http-equiv="Content-Security-Policy">` policies the page script found
    /// (``ProxyDocumentTarget/addMetaPolicies(_:document:)``).
    struct MetaPolicies: Codable, Sendable {
        /// Each tag's `content`.
        var policies: [String]
    }

    /// `request` (fetch and XHR; streams when asked), `submit` (a form POST, shown as the new
    /// document), `policy` (the page script's configuration), `slice` (a slice of a streamed
    /// request body, ``ProxySlice``, answering a pull of that request) and `csp` (the document's
    /// `<meta>` policies; they can only add restrictions).
    public var actions: [BridgeAction] {
        let proxy = self.proxy
        return [
            Action("request") { [documents] (request: ProxyRequest, context) in
                if let held = await Self.answerFromMemory(request, proxy: proxy, context: context, documents: documents) { return held }
                return try await Self.perform(request, proxy: proxy, context: context, documents: documents)
            },
            // A form POST: the response becomes the new document (the page script cannot show it).
            Action("submit") { [documents] (request: ProxyRequest, context) in
                let response = try await Self.perform(request, proxy: proxy, context: context, documents: documents)
                try await documents.present(response)
                return BridgeEmpty()
            },
            Action("policy") { (_: Empty, _) in proxy.policy.scriptConfiguration },
            // The document's meta policies, sent by the page script as the parser meets them; taken
            // in the message callback, so a request the page sends after it is checked against them.
            .immediate("csp") { [documents] (meta: MetaPolicies, context) in
                documents.addMetaPolicies(meta.policies, document: context.document)
                return BridgeEmpty()
            },
            // A slice of a streamed request body, answering a pull of that request's call.
            .immediate("slice") { (slice: ProxySlice, context) in
                try proxy.bodies.deliver(slice, origin: context.origin, document: context.document)
                return BridgeEmpty()
            },
        ]
    }

    /// A fresh response the proxy's cache holds in memory, answered on the main actor where the
    /// call arrived: with no task switch the call costs little more than the bridge's round trip
    /// (``RequestProxy/answerFromMemory(_:origin:policies:)``); `nil` sends it the usual way.
    @MainActor
    private static func answerFromMemory(_ request: ProxyRequest, proxy: RequestProxy, context: BridgeCallContext,
                                         documents: ProxyDocumentTarget) -> ProxyResponse? {
        proxy.answerFromMemory(request, origin: context.origin, policies: documents.policies(for: context.document))
    }

    /// Runs the request while a relay delivers its progress to the page in order (upload
    /// progress, and for a streamed request the response head and body chunks, see
    /// ``ProxyStream``); the reply waits until every report has been handed to the bridge, and
    /// carries the body bytes no report did.
    private static func perform(_ request: ProxyRequest, proxy: RequestProxy, context: BridgeCallContext,
                                documents: ProxyDocumentTarget) async throws -> ProxyResponse {
        let openFeed: (@Sendable () -> BridgeByteFeed?)? = request.feed == true ? { @Sendable in context.openByteFeed() } : nil
        let stream = ProxyStream(openFeed: openFeed, send: { @MainActor report in await context.progress(report) })
        // The document's policies decide, whatever the request says: a script calling the bridge
        // itself gets the same verdict as the page script's hooks. Enforced violations travel
        // with the failure, report-only ones as progress (the page fires their events either way).
        let policies = await documents.policies(for: context.document)
        let blocked = ViolationList()
        // An allowed hop's report-only violations go as progress; a refused hop's, with its enforced
        // ones, travel with the failure in the policies' order (each engine fires a report-only
        // event again when its second check of an allowed request runs; see quirks.js).
        let rules = RequestProxy.PageRules(policies: policies) { verdict in
            if verdict.allowed { verdict.violations.forEach(stream.violation) } else { verdict.violations.forEach(blocked.append) }
        }
        let streamed = request.stream == true && context.action == "request"
        let upload: (@Sendable (ProxyProgress) -> Void)? = request.uploadProgress == false ? nil : { @Sendable report in stream.upload(report) }
        // A streamed body is pulled from this call's page, through this call's progress; only a
        // call the router bound to a document can be answered (ProxyBodyRegistry).
        if (request.bodySize ?? 0) > 0, context.document == nil {
            throw HybridError.network(.invalidBody("a streamed body needs a call from a page's document"))
        }
        let source = request.bodySize.flatMap { size in
            size > 0 ? ProxyBodySource(size: size, origin: context.origin, document: context.document,
                                       openSink: request.bodyBlob == true ? { @Sendable sink in context.openByteSink(sink) } : nil) {
                stream.pull($0)
            } : nil
        }
        if let source { proxy.bodies.add(source) }
        defer { if let source { proxy.bodies.remove(source) } }
        do {
            let response = try await withTaskCancellationHandler {
                try await proxy.perform(request, origin: context.origin, progress: upload, events: streamed ? stream.events : nil,
                                        body: source, rules: rules)
            } onCancel: {
                stream.abort()
                source?.cancel()
            }
            await stream.close()
            return stream.reply(response)
        } catch HybridError.network(let failure) where failure.code == "csp_denied" {
            // Report-only violations of earlier hops were on their way; they go before the failure.
            await stream.close()
            let events = blocked.items.compactMap { try? JSONValue(jsonText: String(decoding: JSONEncoder().encode($0), as: UTF8.self)) }
            throw BridgeFailure.module(code: failure.code, message: failure.description, data: ["violations": .array(events)])
        } catch {
            stream.abort()
            throw error
        }
    }

    /// The enforced violations of one request, collected from the transfer's hops.
    private final class ViolationList: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [ContentSecurityPolicy.Violation] = []
        func append(_ violation: ContentSecurityPolicy.Violation) { lock.withLock { list.append(violation) } }
        var items: [ContentSecurityPolicy.Violation] { lock.withLock { list } }
    }

    /// The page script that hooks `XMLHttpRequest`, `fetch` and form POSTs for `policy`: added
    /// at document start to the main frame; it stays inert on pages ``ProxyPolicy/pages`` does
    /// not name (the check is the same pattern matching, in the page, because engines' own
    /// user-script URL patterns cannot express ports). `nil` when the policy is off.
    /// It needs the bridge's page runtime (`window.hybrid`).
    public static func userScript(policy: ProxyPolicy) -> UserScript? {
        guard policy.isEnabled, !policy.requests.isEmpty else { return nil }
        return UserScript(source: ProxyScript.source(policy: policy), injectionTime: .documentStart,
                          frames: .mainFrameOnly, world: .page)
    }
}
