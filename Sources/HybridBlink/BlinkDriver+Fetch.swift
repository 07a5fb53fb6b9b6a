#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// Requests paused by the `Fetch` domain: navigation policy for documents, response policy,
/// documents given to `loadHTML`/`loadSimulatedResponse`, load headers and bodies, and
/// requests for schemes the configuration serves.
extension BlinkDriver {
    func requestPaused(_ params: JSONValue) {
        guard let id = params.string("requestId"), let request = params["request"],
              let url = request.string("url").flatMap(URL.init(string:))
        else { return }
        if continueByteRouteRequest(id, url: url, headers: request["headers"]) { return }
        let isMainFrame = params.string("frameId") == targetID
        if params["responseStatusCode"] != nil || params["responseErrorReason"] != nil {
            responseArrived(id, url: url, params: params, isMainFrame: isMainFrame)
            return
        }
        let accept = request["headers"]?.objectValue?.first { $0.key.lowercased() == "accept" }?.value.stringValue
        if EngineHeuristics.isBrowserIconRequest(resourceType: params.string("resourceType"), accept: accept) {
            fire("Fetch.failRequest", ["requestId": .string(id), "errorReason": "BlockedByClient"])
            return
        }
        let schemeRequest = SchemeRequest(
            url: url, method: request.string("method") ?? "GET",
            headers: (request["headers"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value.stringValue ?? "") },
            body: Self.body(of: request))
        guard params.string("resourceType") == "Document" else {
            serveOrContinue(id, schemeRequest)
            return
        }
        if isMainFrame { grantByteRouteAccess(to: url) }
        let reason = navigationReasons.removeValue(forKey: url.absoluteString)
        var type: NavigationType = switch reason {
        case "anchorClick": .linkActivated
        case "formSubmissionGet", "formSubmissionPost": .formSubmitted
        case "reload": .reload
        default: .other
        }
        if historyNavigationPending && isMainFrame {
            historyNavigationPending = false
            type = .backForward
        }
        let action = NavigationAction(
            request: EngineRequest(url: url, method: schemeRequest.method, headers: schemeRequest.headers, body: schemeRequest.body),
            type: type, isMainFrame: isMainFrame, isUserGesture: documentGestures.removeValue(forKey: url.absoluteString) ?? false,
            isRedirect: params["redirectedRequestId"] != nil)
        guard let host else { return }
        host.navigationRequested(action) { [weak self] decision in
            guard let self else { return }
            switch decision {
            case .proceed:
                self.proceed(id, schemeRequest, isMainFrame: isMainFrame)
            case .ignore:
                self.fire("Fetch.failRequest", ["requestId": .string(id), "errorReason": "Aborted"])
            case .proceedAddingHeaders(let headers):
                // Chromium drops a new navigation to the URL it is still aborting (ERR_ABORTED,
                // nothing loads), so a redirect to the same URL goes on with its headers.
                self.proceed(id, schemeRequest, isMainFrame: isMainFrame, adding: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            }
        }
    }

    /// An allowed document request: a document we hold for it, the load's own method/headers/body
    /// (and `adding`, headers a redirect policy put on the same URL), or as is.
    private func proceed(_ id: String, _ request: SchemeRequest, isMainFrame: Bool, adding extraHeaders: [(String, String)] = []) {
        if isMainFrame, let document = pendingDocuments.removeValue(forKey: request.url.absoluteString) {
            fulfill(id, SchemeResponse(status: 200, contentType: document.contentType, data: document.body))
            return
        }
        var request = request
        var overrides: [String: JSONValue] = [:]
        if isMainFrame, let load = pendingLoad, load.url.absoluteString == request.url.absoluteString {
            pendingLoad = nil
            request.method = load.method
            request.body = load.body ?? request.body
            for (name, value) in load.headers {
                request.headers.removeAll { $0.name.equalsIgnoringASCIICase(name) }
                request.headers.append((name, value))
            }
            overrides["method"] = .string(load.method)
            overrides["headers"] = .array(request.headers.map { ["name": .string($0.name), "value": .string($0.value)] })
            if let body = load.body { overrides["postData"] = .string(body.base64EncodedString()) }
        }
        if !extraHeaders.isEmpty {
            for (name, value) in extraHeaders {
                request.headers.removeAll { $0.name.equalsIgnoringASCIICase(name) }
                request.headers.append((name, value))
            }
            overrides["headers"] = .array(request.headers.map { ["name": .string($0.name), "value": .string($0.value)] })
        }
        serveOrContinue(id, request, overrides: overrides, isMainDocument: isMainFrame)
    }

    /// Hands the request to the configuration's handler for its scheme, or lets it through.
    private func serveOrContinue(_ id: String, _ request: SchemeRequest, overrides: [String: JSONValue] = [:], isMainDocument: Bool = false) {
        guard let scheme = request.url.scheme?.lowercased(), let handler = configuration.schemeHandlers[scheme] else {
            var params = overrides
            params["requestId"] = .string(id)
            fire("Fetch.continueRequest", params)
            return
        }
        Task.immediate { @MainActor [weak self] in
            do {
                let response = try await handler.respond(to: request)
                // The protocol has no streamed fulfilment: a streamed body is collected first.
                var body = Data()
                switch response.body {
                case .data(let data): body = data
                case .stream(let chunks, _): for try await chunk in chunks { body.append(chunk) }
                }
                guard let self else { return }
                let served = SchemeResponse(status: response.status, headers: response.headers, body: .data(body))
                // A document the handler served is shown to the response policy as a network one would be.
                guard isMainDocument, let host = self.host else { return self.fulfill(id, served) }
                let mimeType = response.header("Content-Type")?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                host.responseArrived(NavigationResponse(
                    url: request.url, statusCode: response.status, mimeType: mimeType, headers: response.headers,
                    isMainFrame: true, canShowMIMEType: mimeType.map(EngineHeuristics.blinkRenders) ?? true)) { [weak self] policy in
                    if policy == .allow {
                        self?.fulfill(id, served)
                    } else if policy == .download {
                        self?.fulfill(id, Self.asAttachment(served))
                    } else {
                        self?.fire("Fetch.failRequest", ["requestId": .string(id), "errorReason": "Aborted"])
                    }
                }
            } catch {
                self?.fire("Fetch.failRequest", ["requestId": .string(id), "errorReason": "Failed"])
            }
        }
    }

    private func fulfill(_ id: String, _ response: SchemeResponse) {
        guard case .data(let body) = response.body else { return }
        fire("Fetch.fulfillRequest", [
            "requestId": .string(id), "responseCode": .number(Double(response.status)),
            "responseHeaders": .array(response.headers.map { ["name": .string($0.name), "value": .string($0.value)] }),
            "body": .string(body.base64EncodedString()),
        ])
    }

    /// A response turned into a download: `Content-Disposition: attachment` (keeping a file name it had).
    static func asAttachment(_ response: SchemeResponse) -> SchemeResponse {
        var response = response
        response.headers = Self.markedAsAttachment(response.headers)
        return response
    }

    /// `headers` with a `Content-Disposition` that says attachment (``ContentDisposition/attachment(keeping:)``).
    static func markedAsAttachment(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        let disposition = headers.first { $0.name.lowercased() == "content-disposition" }?.value
        return headers.filter { $0.name.lowercased() != "content-disposition" }
            + [("Content-Disposition", ContentDisposition.attachment(keeping: disposition))]
    }

    /// A document's response: the delegate allows, cancels or downloads it.
    private func responseArrived(_ id: String, url: URL, params: JSONValue, isMainFrame: Bool) {
        guard let status = params.int("responseStatusCode") else {
            fire("Fetch.continueRequest", ["requestId": .string(id)])
            return
        }
        let headers = (params["responseHeaders"]?.arrayValue ?? []).map { ($0.string("name") ?? "", $0.string("value") ?? "") }
        let contentType = headers.first { $0.0.lowercased() == "content-type" }?.1
        let mimeType = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let response = NavigationResponse(
            url: url, statusCode: status, mimeType: mimeType, headers: headers, isMainFrame: isMainFrame,
            canShowMIMEType: mimeType.map(EngineHeuristics.blinkRenders) ?? true)
        host?.responseArrived(response) { [weak self] policy in
            if policy == .allow {
                self?.fire("Fetch.continueResponse", ["requestId": .string(id)])
            } else if policy == .download {
                // Marked as an attachment, Chromium downloads it (BlinkDownloads asks where to).
                let marked = Self.markedAsAttachment(response.headers)
                self?.fire("Fetch.continueResponse", [
                    "requestId": .string(id), "responseCode": .number(Double(status)),
                    "responseHeaders": .array(marked.map { ["name": .string($0.0), "value": .string($0.1)] }),
                ])
            } else {
                self?.fire("Fetch.failRequest", ["requestId": .string(id), "errorReason": "Aborted"])
            }
        }
    }

    /// The request body: `postDataEntries` carry the bytes (base64); `postData` is text.
    static func body(of request: JSONValue) -> Data? {
        if let entries = request["postDataEntries"]?.arrayValue, !entries.isEmpty {
            return entries.reduce(into: Data()) { data, entry in
                if let bytes = entry.string("bytes").flatMap({ Data(base64Encoded: $0) }) { data.append(bytes) }
            }
        }
        return request.string("postData").map { Data($0.utf8) }
    }
}
#endif
