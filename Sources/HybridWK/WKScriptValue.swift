#if canImport(WebKit)
import Foundation
import HybridCore
import WebKit

/// WebKit's Foundation values (what JavaScript values become in Swift) ↔ JSON, and WebKit's
/// script errors → typed errors.
enum WKScriptValue {
    /// What a script call's completion handler got, as the seam's result: the value as JSON, or
    /// WebKit's error as ``hybridError(_:)`` makes it.
    static func jsonResult(_ result: Result<Any, any Error>) -> Result<JSONValue, any Error> {
        switch result {
        case .success(let value): Result { try json(from: value) }
        case .failure(let error): .failure(hybridError(error))
        }
    }

    /// A script result as JSON. `undefined` (nil, or the `Optional<Any>.none` that WebKit's
    /// Result-based completion forms box into `Any`) and `null` (NSNull) are `null`.
    /// - Throws: `HybridError.engine(.resultNotJSON)` for values JSON has no form for.
    static func json(from value: Any?) throws -> JSONValue {
        guard let value = unboxed(value) else { return .null }
        if value is NSNull { return .null }
        if let text = value as? String { return .string(text) }
        if let number = value as? NSNumber {
            // JavaScript booleans arrive as NSNumber booleans (objCType "c"); numbers as doubles.
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            return .number(number.doubleValue)
        }
        if let array = value as? [Any] { return .array(try array.map { try json(from: $0) }) }
        if let object = value as? [String: Any] {
            var result: [String: JSONValue] = [:]
            for (key, element) in object { result[key] = try json(from: element) }
            return .object(result)
        }
        if let date = value as? Date {
            // What JSON.stringify makes of a Date.
            return .string(ISO8601DateFormatter().string(from: date))
        }
        throw HybridError.engine(.resultNotJSON(String(describing: value)))
    }

    /// `value` without the `Optional` layers `Any` can hide (`Optional<Any>.none as Any` is nil).
    private static func unboxed(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return unboxed(mirror.children.first?.value)
    }

    /// A posted message body: strings as-is, anything else as JSON text (as on WebKitGTK).
    static func messageBody(_ body: Any) -> ScriptMessage.Body {
        if let text = body as? String { return .string(text) }
        let json = (try? json(from: body)) ?? .null
        return .json(json.jsonText)
    }

    /// A Foundation object WebKit turns back into the JavaScript value `jsonText` describes.
    static func foundationObject(jsonText: String) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(jsonText.utf8), options: [.fragmentsAllowed])
    }

    /// WebKit's error for a script call, as the seam's errors.
    static func hybridError(_ error: any Error) -> any Error {
        if error is HybridError { return error }
        let nsError = error as NSError
        guard nsError.domain == WKErrorDomain else {
            return HybridError.engine(.native(domain: nsError.domain, code: nsError.code, message: nsError.localizedDescription))
        }
        switch nsError.code {
        case WKError.Code.javaScriptExceptionOccurred.rawValue:
            // WebKit puts the exception's text under this key; the description is generic.
            let message = nsError.userInfo["WKJavaScriptExceptionMessage"] as? String ?? nsError.localizedDescription
            return HybridError.engine(.javaScript(message: message))
        case WKError.Code.javaScriptResultTypeIsUnsupported.rawValue:
            return HybridError.engine(.resultNotJSON(nsError.localizedDescription))
        case WKError.Code.webContentProcessTerminated.rawValue:
            return HybridError.engine(.contentProcessTerminated(.crashed))
        case WKError.Code.webViewInvalidated.rawValue:
            return HybridError.engine(.closed)
        default:
            return HybridError.engine(.native(domain: nsError.domain, code: nsError.code, message: nsError.localizedDescription))
        }
    }
}
#endif
