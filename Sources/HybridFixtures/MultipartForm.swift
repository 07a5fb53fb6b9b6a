#if canImport(CWebKitGTK)
import CWebKitGTK
import HybridServer
import Foundation

/// A `multipart/form-data` (or any `multipart/*`) request body, parsed by libsoup's `SoupMultipart`.
public struct MultipartForm: Sendable {
    /// One part: a form field, or a file when it has a file name.
    public struct Part: Sendable {
        /// The `name` parameter of `Content-Disposition`.
        public var name: String?
        /// The `filename` parameter of `Content-Disposition` (files only).
        public var filename: String?
        /// The part's own `Content-Type`, if any.
        public var contentType: String?
        /// The part's own header fields, in order.
        public var headers: HTTPHeaders
        /// The part's bytes.
        public var body: Data

        /// The body as UTF-8 text (form fields).
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Every part, in body order.
    public var parts: [Part]

    /// The parts without a file name, as name → value (the last value wins for repeated names).
    public var fields: [String: String] {
        var result: [String: String] = [:]
        for part in parts where part.filename == nil { if let name = part.name { result[name] = part.text } }
        return result
    }

    /// The parts with a file name.
    public var files: [Part] { parts.filter { $0.filename != nil } }

    /// Parses `request`'s body; `nil` when it is not multipart or the boundary structure is broken.
    public init?(_ request: ServerRequest) {
        guard let contentType = request.headers["Content-Type"], contentType.lowercased().hasPrefix("multipart/") else {
            return nil
        }
        guard let headers = soup_message_headers_new(SOUP_MESSAGE_HEADERS_MULTIPART) else { return nil }
        defer { soup_message_headers_unref(headers) }
        soup_message_headers_append(headers, "Content-Type", contentType)
        let bytes = request.body.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        guard let multipart = soup_multipart_new_from_message(headers, bytes) else { return nil }
        defer { soup_multipart_free(multipart) }
        var parts: [Part] = []
        for index in 0..<soup_multipart_get_length(multipart) {
            var partHeaders: OpaquePointer?
            var partBody: OpaquePointer?
            guard soup_multipart_get_part(multipart, index, &partHeaders, &partBody) != 0, let partHeaders else { continue }
            parts.append(Self.part(headers: partHeaders, body: partBody))
        }
        self.parts = parts
    }

    private static func part(headers: OpaquePointer, body: OpaquePointer?) -> Part {
        var fields = HTTPHeaders()
        var iterator = SoupMessageHeadersIter()
        soup_message_headers_iter_init(&iterator, headers)
        var name: UnsafePointer<CChar>?
        var value: UnsafePointer<CChar>?
        while soup_message_headers_iter_next(&iterator, &name, &value) != 0 {
            if let name, let value { fields.add(String(cString: name), String(cString: value)) }
        }
        var fieldName: String?
        var filename: String?
        var disposition: UnsafeMutablePointer<CChar>?
        var parameters: OpaquePointer?
        if soup_message_headers_get_content_disposition(headers, &disposition, &parameters) != 0 {
            fieldName = lookup(parameters, "name")
            filename = lookup(parameters, "filename")
            g_free(disposition)
            if let parameters { g_hash_table_destroy(parameters) }
        }
        var data = Data()
        if let body {
            var length: gsize = 0
            if let pointer = g_bytes_get_data(body, &length), length > 0 { data = Data(bytes: pointer, count: Int(length)) }
        }
        return Part(name: fieldName, filename: filename, contentType: fields["Content-Type"], headers: fields, body: data)
    }

    private static func lookup(_ table: OpaquePointer?, _ key: String) -> String? {
        guard let table else { return nil }
        return key.withCString { g_hash_table_lookup(table, $0) }.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
    }
}
#endif
