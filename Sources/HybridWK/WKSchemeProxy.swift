#if canImport(WebKit)
import Foundation
import HybridCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebKit

/// The `WKURLSchemeHandler` of one view: reads method, headers and body of each custom-scheme
/// request, asks the view's ``URLSchemeHandler`` and answers WebKit exactly once.
///
/// A task WebKit stopped must never be touched again (WebKit raises an exception), so every task
/// gets a token that is never reused; an answer whose token is gone is dropped.
@MainActor
final class WKSchemeProxy: NSObject, WKURLSchemeHandler {
    private let handlers: [String: any URLSchemeHandler]
    private var tasks: [UInt64: any WKURLSchemeTask] = [:]
    private var tokens: [ObjectIdentifier: UInt64] = [:]
    private var nextToken: UInt64 = 0

    init(handlers: [String: any URLSchemeHandler]) {
        var lowered: [String: any URLSchemeHandler] = [:]
        for (scheme, handler) in handlers { lowered[scheme.lowercased()] = handler }
        self.handlers = lowered
        super.init()
    }

    static let errorDomain = "HybridKit.URLScheme"

    func webView(_ webView: WKWebView, start urlSchemeTask: any WKURLSchemeTask) {
        nextToken += 1
        let token = nextToken
        tasks[token] = urlSchemeTask
        tokens[ObjectIdentifier(urlSchemeTask)] = token
        let request = urlSchemeTask.request
        guard let url = request.url, let scheme = url.scheme?.lowercased(), let handler = handlers[scheme] else {
            fail(token, status: 404, message: "no handler for \(request.url?.scheme ?? "?"): in this view")
            return
        }
        let schemeRequest = SchemeRequest(
            url: url, method: request.httpMethod ?? "GET", headers: request.orderedHeaders, body: request.bodyData)
        Task { @MainActor [weak self] in
            do {
                let response = try await handler.respond(to: schemeRequest)
                await self?.deliver(response, to: token)
            } catch {
                self?.fail(token, status: 500, message: "\(error)")
            }
        }
    }

    func webView(_ webView: WKWebView, stop urlSchemeTask: any WKURLSchemeTask) {
        guard let token = tokens.removeValue(forKey: ObjectIdentifier(urlSchemeTask)) else { return }
        tasks[token] = nil
    }

    /// The view is closing: no task is answered afterwards.
    func stopAll() {
        tasks.removeAll()
        tokens.removeAll()
    }

    private func deliver(_ response: SchemeResponse, to token: UInt64) async {
        guard let task = tasks[token], let url = task.request.url else { return }
        var fields: [String: String] = [:]
        for (name, value) in response.headers {
            // Foundation keeps one value per name; repeated headers are joined as HTTP allows.
            fields[name] = fields[name].map { "\($0), \(value)" } ?? value
        }
        guard let httpResponse = HTTPURLResponse(url: url, statusCode: response.status, httpVersion: "HTTP/1.1", headerFields: fields) else {
            fail(token, status: 500, message: "could not create response")
            return
        }
        task.didReceive(httpResponse)
        switch response.body {
        case .data(let data):
            if !data.isEmpty { task.didReceive(data) }
        case .stream(let chunks, _):
            do {
                for try await chunk in chunks {
                    // WebKit may stop the task between chunks (the page went away).
                    guard let live = tasks[token] else { return }
                    live.didReceive(chunk)
                }
            } catch {
                fail(token, status: 500, message: "\(error)")
                return
            }
        }
        finish(token)
    }

    private func finish(_ token: UInt64) {
        guard let task = forget(token) else { return }
        task.didFinish()
    }

    private func fail(_ token: UInt64, status: Int, message: String) {
        guard let task = forget(token) else { return }
        task.didFailWithError(NSError(domain: Self.errorDomain, code: status, userInfo: [NSLocalizedDescriptionKey: message]))
    }

    private func forget(_ token: UInt64) -> (any WKURLSchemeTask)? {
        guard let task = tasks.removeValue(forKey: token) else { return nil }
        tokens[ObjectIdentifier(task)] = nil
        return task
    }
}
#endif
