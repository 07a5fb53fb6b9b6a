#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
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
    ///
    /// Hand-written: Foundation's encoders take 100–300 ms per MiB of string on Linux, which
    /// would dominate a 1 MB bridge message; this is one pass over the bytes.
    static func data(_ value: JSONValue) -> Data {
        var out: [UInt8] = []
        write(value, to: &out)
        return Data(out)
    }

    /// JSON text for a value (also a valid JavaScript literal: ES2019 allows U+2028/2029 in strings).
    static func text(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        write(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func write(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let bool): out.append(contentsOf: bool ? Array("true".utf8) : Array("false".utf8))
        case .number(let number):
            if !number.isFinite {
                out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
            } else if number.rounded() == number && abs(number) < 1e15 {
                out.append(contentsOf: String(Int64(number)).utf8)
            } else {
                out.append(contentsOf: "\(number)".utf8)
            }
        case .string(let string): writeString(string, to: &out)
        case .array(let array):
            out.append(0x5B)
            for (index, element) in array.enumerated() {
                if index > 0 { out.append(0x2C) }
                write(element, to: &out)
            }
            out.append(0x5D)
        case .object(let object):
            out.append(0x7B)
            var first = true
            for (key, element) in object {
                if !first { out.append(0x2C) }
                first = false
                writeString(key, to: &out)
                out.append(0x3A)
                write(element, to: &out)
            }
            out.append(0x7D)
        }
    }

    /// Whether any byte of `word` is a control character, `"` or `\\` (bytes ≥ 0x80 never are).
    @inline(__always)
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        let below20 = (word &- ones &* 0x20) & ~word & highs != 0
        return below20 || hasZero(word ^ (ones &* 0x22)) || hasZero(word ^ (ones &* 0x5C))
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// A quoted, escaped string, copied a run at a time between characters that need escaping.
    private static func writeString(_ string: String, to out: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes in
            out.reserveCapacity(out.count + bytes.count + 2)
            out.append(0x22)
            guard let base = bytes.baseAddress else { out.append(0x22); return }
            var runStart = 0
            var index = 0
            let count = bytes.count
            while index < count {
                // Eight bytes at a time while none needs escaping (the common case, even in debug builds).
                if index + 8 <= count {
                    let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                    if !needsEscape(word) {
                        index += 8
                        continue
                    }
                }
                let byte = base[index]
                if byte >= 0x20 && byte != 0x22 && byte != 0x5C {
                    index += 1
                    continue
                }
                if index > runStart { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart)) }
                switch byte {
                case 0x22: out.append(contentsOf: [0x5C, 0x22])
                case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: out.append(contentsOf: [0x5C, 0x72])
                case 0x09: out.append(contentsOf: [0x5C, 0x74])
                default: out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
                index += 1
                runStart = index
            }
            if count > runStart { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: count - runStart)) }
            out.append(0x22)
        }
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
#endif
