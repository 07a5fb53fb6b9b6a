import Foundation

/// A JSON value that crosses the engine seam: script results, bridge params and replies.
///
/// Numbers are kept as `Double`, exactly as JavaScript sees them.
public enum JSONValue: Sendable, Hashable, Codable {
    /// JSON `null` (and JavaScript `undefined` where an engine reports it).
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number; JSON has one number type, as JavaScript does.
    case number(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object; key order is not kept.
    case object([String: JSONValue])

    /// Decodes any JSON value, including a top-level scalar.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as the JSON it stands for.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses JSON text (any top-level value, including scalars).
    /// - Throws: `HybridError.engine(.resultNotJSON)` when the text is not JSON.
    public init(jsonText: String) throws {
        do {
            self = try JSONDecoder().decode(JSONValue.self, from: Data(jsonText.utf8))
        } catch {
            throw HybridError.engine(.resultNotJSON(String(jsonText.prefix(80))))
        }
    }

    /// Compact JSON text for this value (keys sorted, so output is stable).
    public var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The string, when this is a ``string(_:)``.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The number, when this is a ``number(_:)``.
    public var numberValue: Double? { if case .number(let n) = self { n } else { nil } }
    /// The Boolean, when this is a ``bool(_:)``.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The elements, when this is an ``array(_:)``.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    /// The members, when this is an ``object(_:)``.
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
    /// The member named `key`, when this is an object that has one.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// A JSON string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A JSON number (as a `Double`).
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A JSON number.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A JSON Boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A JSON array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A JSON object; for a repeated key the last value wins.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// JSON `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension String {
    /// This string as a JavaScript/JSON string literal, safe to splice into script source.
    public var jsStringLiteral: String { JSONValue.string(self).jsonText.replacingOccurrences(of: "\u{2028}", with: "\\u2028").replacingOccurrences(of: "\u{2029}", with: "\\u2029") }
}
