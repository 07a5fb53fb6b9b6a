import CHybridGTK
import CWebKitGTK
import Foundation
import HybridCore

/// JavaScriptCore values ↔ JSON, and WebKit's script errors → typed errors.
@MainActor
enum JSCConversion {
    /// Converts a finished script's result (transfer full) or its error into JSON.
    static func json(from value: OpaquePointer?, error: UnsafeMutablePointer<GError>?) throws -> JSONValue {
        if let error {
            defer { g_error_free(error) }
            let message = error.pointee.message.map { String(cString: $0) } ?? "script failed"
            if error.pointee.domain == webkit_javascript_error_quark() {
                throw HybridError.engine(.javaScript(message: message))
            }
            throw error.pointee.hybridError
        }
        guard let value else { return .null }
        defer { g_object_unref(UnsafeMutableRawPointer(value)) }
        if jsc_value_is_undefined(value) != 0 || jsc_value_is_null(value) != 0 { return .null }
        guard let text = consumeGString(jsc_value_to_json(value, 0)) else {
            // Functions, symbols and cycles have no JSON form.
            throw HybridError.engine(.resultNotJSON(consumeGString(jsc_value_to_string(value)) ?? "?"))
        }
        return try JSONValue(jsonText: text)
    }

    /// A posted message body: strings as-is, anything else as JSON text.
    static func messageBody(_ value: OpaquePointer) -> ScriptMessage.Body {
        if jsc_value_is_string(value) != 0 {
            return .string(consumeGString(jsc_value_to_string(value)) ?? "")
        }
        return .json(consumeGString(jsc_value_to_json(value, 0)) ?? "null")
    }

    /// A new JSC value in `context` (transfer full) for a reply.
    static func value(for reply: ScriptReply, in context: OpaquePointer) -> OpaquePointer? {
        switch reply {
        case .string(let text): jsc_value_new_string(context, text)
        case .json(let text): jsc_value_new_from_json(context, text)
        case .error: nil
        }
    }
}
