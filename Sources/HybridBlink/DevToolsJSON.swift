import Foundation
import HybridCore

/// Conversions between the DevTools protocol's JSON text and ``JSONValue``.
///
/// Parsing goes through `JSONSerialization` (much faster than a `Decodable` walk on large
/// messages such as a screenshot or a 1 MB bridge payload) and is then mapped to `JSONValue`,
/// which is `Sendable` and can cross from the pipe's reader thread to the main actor.
enum DevToolsJSON {
    /// Parses one protocol message; `nil` when it is not a JSON object.
    static func parse(_ data: Data) -> JSONValue? {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        return value(object)
    }

    /// Serialises a message for the pipe (compact, no trailing NUL).
    static func data(_ value: JSONValue) -> Data {
        (try? JSONSerialization.data(withJSONObject: foundation(value), options: [.fragmentsAllowed])) ?? Data("null".utf8)
    }

    static func value(_ object: Any) -> JSONValue {
        switch object {
        case let string as String: return .string(string)
        case let number as NSNumber:
            // On Linux a JSON boolean is an NSNumber of type `c` (char); numbers never are.
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            return .number(number.doubleValue)
        case let array as [Any]: return .array(array.map(value))
        case let dictionary as [String: Any]: return .object(dictionary.mapValues(value))
        default: return .null
        }
    }

    static func foundation(_ value: JSONValue) -> Any {
        switch value {
        case .null: NSNull()
        case .bool(let bool): NSNumber(value: bool)
        case .number(let number): number.rounded() == number && abs(number) < 1e15 ? NSNumber(value: Int64(number)) : NSNumber(value: number)
        case .string(let string): string
        case .array(let array): array.map(foundation)
        case .object(let object): object.mapValues(foundation)
        }
    }
}

extension JSONValue {
    /// A string member of an object, or `nil`.
    func string(_ key: String) -> String? { self[key]?.stringValue }
    /// An integer member of an object, or `nil`.
    func int(_ key: String) -> Int? { self[key]?.numberValue.map { Int($0) } }
    /// A boolean member of an object (`false` when absent).
    func flag(_ key: String) -> Bool { self[key]?.boolValue ?? false }
}

/// An error the browser answered a command with (`{"error": {"code", "message"}}`).
struct DevToolsError: Error, CustomStringConvertible {
    let method: String
    let code: Int
    let message: String
    var description: String { "\(method): \(message) (\(code))" }

    var hybridError: HybridError { .engine(.native(domain: "devtools", code: code, message: "\(method): \(message)")) }
}
