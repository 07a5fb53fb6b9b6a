import CHybridGTK
import CWebKitGTK
import Foundation
import HybridCore

/// One custom-scheme request: reads method, headers and body from WebKit, asks the view's
/// `URLSchemeHandler`, and answers WebKit exactly once (response, streamed body or error).
@MainActor
final class GTKSchemeTask {
    private let request: OpaquePointer  // WebKitURISchemeRequest*, one reference held by us

    init(request: OpaquePointer) {
        self.request = request
        g_object_ref(UnsafeMutableRawPointer(request))
    }

    isolated deinit {
        g_object_unref(UnsafeMutableRawPointer(request))
    }

    static let errorDomain = g_quark_from_static_string("hybridkit-scheme-error-quark")

    /// Fails a request WebKit handed us without a task.
    static func fail(_ request: OpaquePointer, status: Int, message: String) {
        let error = g_error_new_literal(errorDomain, gint(status), message)
        webkit_uri_scheme_request_finish_error(request, error)
        g_error_free(error)
    }

    /// The request as the handler sees it; its body only when `withBody` and the method can
    /// carry one (reading it is what crashes WebKitGTK 2.50 for a `Blob` body).
    func schemeRequest(withBody: Bool) -> SchemeRequest? {
        guard let uri = webkit_uri_scheme_request_get_uri(request), let url = URL(string: String(cString: uri)) else {
            return nil
        }
        let method = webkit_uri_scheme_request_get_http_method(request).map { String(cString: $0) } ?? "GET"
        var headers: [(name: String, value: String)] = []
        if let soupHeaders = webkit_uri_scheme_request_get_http_headers(request) {
            headers = allHeaders(soupHeaders)
        }
        let bodyless = ["GET", "HEAD"].contains(method.uppercased())
        return SchemeRequest(url: url, method: method, headers: headers, body: withBody && !bodyless ? readBody() : nil)
    }

    /// The body of a POST/PUT, read in full (WebKit hands the UI process an in-memory stream).
    private func readBody() -> Data? {
        guard let stream = webkit_uri_scheme_request_get_http_body(request) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(stream)) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var error: UnsafeMutablePointer<GError>?
            let count = buffer.withUnsafeMutableBytes { g_input_stream_read(stream, $0.baseAddress, gsize($0.count), nil, &error) }
            if count <= 0 {
                if let error { g_error_free(error) }
                break
            }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    func run(with handler: any URLSchemeHandler) {
        guard let schemeRequest = schemeRequest(withBody: handler.readsRequestBodies) else {
            Self.fail(request, status: 400, message: "malformed request URL")
            return
        }
        // Started at once, on the main actor we are on: a handler that can answer without
        // suspending (a package file already in memory) finishes the request in this same turn,
        // instead of one main-loop hop later.
        Task.immediate { @MainActor in
            do {
                let response = try await handler.respond(to: schemeRequest)
                self.finish(with: response)
            } catch {
                Self.fail(self.request, status: 500, message: "\(error)")
            }
        }
    }

    private func finish(with response: SchemeResponse) {
        let stream: UnsafeMutablePointer<GInputStream>
        let length: Int64
        switch response.body {
        case .data(let data):
            let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            stream = g_memory_input_stream_new_from_bytes(bytes)
            g_bytes_unref(bytes)
            length = Int64(data.count)
        case .stream(let chunks, let declaredLength):
            var writeFD: Int32 = -1
            var error: UnsafeMutablePointer<GError>?
            guard let pipeStream = hk_pipe_input_stream(&writeFD, &error) else {
                let message = consumeGError(error)?.description ?? "pipe failed"
                Self.fail(request, status: 500, message: message)
                return
            }
            stream = pipeStream
            length = declaredLength ?? -1
            Self.pump(chunks, into: writeFD)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(stream)) }
        guard let schemeResponse = webkit_uri_scheme_response_new(stream, gint64(length)) else {
            Self.fail(request, status: 500, message: "could not create response")
            return
        }
        defer { g_object_unref(UnsafeMutableRawPointer(schemeResponse)) }
        webkit_uri_scheme_response_set_status(schemeResponse, guint(response.status), nil)
        if let contentType = response.header("Content-Type") {
            webkit_uri_scheme_response_set_content_type(schemeResponse, contentType)
        }
        let headers = soup_message_headers_new(SOUP_MESSAGE_HEADERS_RESPONSE)
        for (name, value) in response.headers { soup_message_headers_append(headers, name, value) }
        webkit_uri_scheme_response_set_http_headers(schemeResponse, headers)  // takes ownership
        webkit_uri_scheme_request_finish_with_response(request, schemeResponse)
    }

    /// Writes chunks to the pipe off the main thread (a full pipe blocks); a reader that went away
    /// (EPIPE: WebKit cancelled the load) ends the stream and cancels the producer.
    private nonisolated static func pump(_ chunks: AsyncThrowingStream<Data, any Error>, into fd: Int32) {
        Task.detached {
            defer { close(fd) }
            do {
                for try await chunk in chunks {
                    let ok = chunk.withUnsafeBytes { raw -> Bool in
                        var offset = 0
                        while offset < raw.count {
                            let written = write(fd, raw.baseAddress!.advanced(by: offset), raw.count - offset)
                            if written < 0 {
                                if errno == EINTR { continue }
                                return false
                            }
                            offset += written
                        }
                        return true
                    }
                    if !ok { return }
                }
            } catch {
                // The producer failed: closing the pipe ends the body early; the page sees a short read.
            }
        }
    }
}

/// Every header of a `SoupMessageHeaders*`, in order, names as sent.
func allHeaders(_ headers: OpaquePointer) -> [(name: String, value: String)] {
    var result: [(name: String, value: String)] = []
    var iterator = SoupMessageHeadersIter()
    soup_message_headers_iter_init(&iterator, headers)
    var name: UnsafePointer<CChar>?
    var value: UnsafePointer<CChar>?
    while soup_message_headers_iter_next(&iterator, &name, &value) != 0 {
        if let name, let value { result.append((String(cString: name), String(cString: value))) }
    }
    return result
}
