import Foundation
import HybridBase

/// JSON text for replies, progress and events, with fast paths for the common result types.
///
/// Every call pays for encoding its result, so strings, numbers, booleans, `null` and
/// ``JSONValue`` trees are written directly; anything else goes through `JSONEncoder`.
enum BridgeJSON {
    /// Compact JSON text of `value` (top-level fragments allowed).
    /// - Throws: ``BridgeFailure/internalError(_:)`` when it cannot be encoded (NaN, infinity).
    static func encode<T: Encodable>(_ value: T) throws -> String {
        switch value {
        case is BridgeEmpty: return "null"
        case let text as String: return quote(text)
        case let flag as Bool: return flag ? "true" : "false"
        case let number as Int: return String(number)
        case let number as Double: return try self.number(number)
        case let json as JSONValue: return try write(json)
        case let bytes as BridgeBytes: return bytes.jsonText
        case let data as Data: return BridgeBytes(data).jsonText
        default: break
        }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw BridgeFailure.internalError("result is not JSON-encodable: \(error)")
        }
    }

    /// `value` as JSON text, keys sorted.
    static func write(_ value: JSONValue) throws -> String {
        var out = ""
        try write(value, into: &out)
        return out
    }

    private static func write(_ value: JSONValue, into out: inout String) throws {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let number): out += try self.number(number)
        case .string(let text): out += quote(text)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                try write(item, into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                out += quote(key)
                out += ":"
                try write(members[key] ?? .null, into: &out)
            }
            out += "}"
        }
    }

    private static func number(_ value: Double) throws -> String {
        guard value.isFinite else { throw BridgeFailure.internalError("result is not JSON-encodable: \(value)") }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// `text` as a JSON string literal that is also safe inside JavaScript source
    /// (U+2028/U+2029 escaped). Text needing no escapes is copied in one piece.
    static func quote(_ text: String) -> String {
        var text = text
        let clean = text.withUTF8 { BridgeJSONScanner.firstSpecialByte(in: $0, from: 0, also: 0xE2) == $0.count }
        if clean {
            var out = "\""
            out.reserveCapacity(text.utf8.count + 2)
            out += text
            out += "\""
            return out
        }
        var out = "\""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A short description of a decoding error: where and what (`params.count: expected Int`).
    static func describe(_ error: any Error, root: String = "params") -> String {
        if case BridgeFailure.malformed(let why) = error { return why }
        guard let error = error as? DecodingError else { return String(describing: error) }
        func path(_ codingPath: [any CodingKey]) -> String {
            ([root] + codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue })
                .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context): return "\(path(context.codingPath)): missing \(type)"
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])): missing"
        case .dataCorrupted(let context): return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return String(describing: error)
        }
    }
}
