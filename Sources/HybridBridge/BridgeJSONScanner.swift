import Foundation
import HybridBase

/// A strict JSON reader over UTF-8 bytes, for the bridge's hot path.
///
/// `JSONDecoder` costs tens of microseconds per message here, more than the engine's own round
/// trip, so the envelope is read by hand: its few fields directly, `params` as a validated byte
/// range decoded afterwards into the action's own type. Nesting is limited (``maxDepth``) and
/// every failure is a thrown ``BridgeFailure/malformed(_:)``: hostile input can neither crash nor
/// recurse without bound.
struct BridgeJSONScanner {
    // Reads only: the bytes belong to the message being decoded.
    static let maxDepth = 256

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    // MARK: Structure

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    var atEnd: Bool { index >= bytes.count }

    func fail(_ why: String) -> BridgeFailure { .malformed("\(why) at byte \(index)") }

    mutating func expect(_ byte: UInt8, _ what: String) throws {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { throw fail("expected \(what)") }
        index += 1
    }

    /// Consumes `byte` (after whitespace) if it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Consumes a `null` if it is next.
    mutating func takeNull() throws -> Bool {
        guard peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    /// Skips one value, checking its grammar, and returns its byte range.
    ///
    /// Iterative, with an explicit stack of open containers (`true` = object), so depth costs
    /// memory bounded by ``maxDepth``, never stack.
    mutating func skipValue() throws -> Range<Int> {
        skipWhitespace()
        let start = index
        var open: [Bool] = []
        value: while true {
            guard let byte = peek() else { throw fail("unexpected end") }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                index += 1
                let isObject = byte == UInt8(ascii: "{")
                if !take(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    guard open.count < Self.maxDepth else { throw fail("nesting deeper than \(Self.maxDepth)") }
                    open.append(isObject)
                    if isObject {
                        try skipString()
                        try expect(UInt8(ascii: ":"), "':'")
                    }
                    continue value
                }
            case UInt8(ascii: "\""): try skipString()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            default: _ = try numberText()
            }
            // A value ended: a comma starts the next member, a closer ends its container.
            while let isObject = open.last {
                if take(UInt8(ascii: ",")) {
                    if isObject {
                        try skipString()
                        try expect(UInt8(ascii: ":"), "':'")
                    }
                    continue value
                }
                guard take(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw fail("expected ',' or a closing bracket")
                }
                open.removeLast()
            }
            return start..<index
        }
    }

    /// Reads any value as a ``JSONValue`` (depth limited).
    mutating func jsonValue(depth: Int = 0) throws -> JSONValue {
        guard depth < Self.maxDepth else { throw fail("nesting deeper than \(Self.maxDepth)") }
        guard let byte = peek() else { throw fail("unexpected end") }
        switch byte {
        case UInt8(ascii: "{"):
            index += 1
            var members: [String: JSONValue] = [:]
            if take(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                let key = try string("key")
                try expect(UInt8(ascii: ":"), "':'")
                members[key] = try jsonValue(depth: depth + 1)
            } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"), "'}'")
            return .object(members)
        case UInt8(ascii: "["):
            index += 1
            var items: [JSONValue] = []
            if take(UInt8(ascii: "]")) { return .array(items) }
            repeat { items.append(try jsonValue(depth: depth + 1)) } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"), "']'")
            return .array(items)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default:
            let text = try numberText()
            guard let number = Double(text), number.isFinite else { throw fail("number out of range") }
            return .number(number)
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("bad literal") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw fail("bad literal") }
        index += count
    }

    // MARK: Scalars

    /// Reads a JSON number's text (full grammar).
    mutating func numberText() throws -> Substring {
        skipWhitespace()
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index - from
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw fail("expected a value") }
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") { throw fail("leading zero") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw fail("bad fraction") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw fail("bad exponent") }
        }
        return Substring(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    /// Reads an integer in `range` (an integral number such as `3` or `3.0`).
    mutating func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let byte = peek(), byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39) else {
            throw fail("\(name) must be a number")
        }
        let text = try numberText()
        let value: Int? = Int(text) ?? Double(text).flatMap { $0 == $0.rounded() && abs($0) < 9.1e15 ? Int($0) : nil }
        guard let value, range.contains(value) else { throw fail("\(name) out of range") }
        return value
    }

    /// Skips a string, checking escapes and control characters.
    mutating func skipString() throws {
        _ = try string(decode: false)
    }

    /// Reads a string; text without escapes is copied in one piece.
    mutating func string(_ name: String = "string") throws -> String {
        guard peek() == UInt8(ascii: "\"") else { throw fail("\(name) must be a string") }
        return try string(decode: true) ?? ""
    }

    private mutating func string(decode: Bool) throws -> String? {
        try expect(UInt8(ascii: "\""), "a string")
        let start = index
        index = Self.firstSpecialByte(in: bytes, from: index)
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return decode ? String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self) : nil
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw fail("control character in string") }
            index += 1
        }
        // Escapes: decode from `start` one unit at a time.
        index = start
        var scalars = String.UnicodeScalarView()
        var plain = start
        func flush(_ scanner: BridgeJSONScanner) {
            guard decode, plain < scanner.index else { return }
            scalars.append(contentsOf: String(decoding: UnsafeBufferPointer(rebasing: scanner.bytes[plain..<scanner.index]), as: UTF8.self).unicodeScalars)
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                flush(self)
                index += 1
                return decode ? String(scalars) : nil
            }
            guard byte >= 0x20 else { throw fail("control character in string") }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            flush(self)
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{8}")
            case UInt8(ascii: "f"): scalars.append("\u{c}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var unit = try hex4()
                if (0xD800...0xDBFF).contains(unit), index + 1 < bytes.count,
                   bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                    let save = index
                    index += 2
                    let low = try hex4()
                    if (0xDC00...0xDFFF).contains(low) {
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        index = save
                    }
                }
                // A lone surrogate (legal in JavaScript strings) becomes U+FFFD.
                scalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
            default:
                throw fail("bad escape")
            }
            plain = index
        }
        throw fail("unterminated string")
    }

    /// The index of the first byte at or after `start` that is `"`, `\\` or a control character
    /// (or `bytes.count`), eight bytes at a time: large strings are the bridge's bulk.
    static func firstSpecialByte(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, also extra: UInt8? = nil) -> Int {
        guard let base = bytes.baseAddress else { return start }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = ones &* 0x22, slashes = ones &* 0x5C, extras = ones &* UInt64(extra ?? 0x22)
        func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        var index = start
        let raw = UnsafeRawPointer(base)
        while index + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let control = (word &- ones &* 0x20) & ~word & highs != 0
            if control || hasZero(word ^ quotes) || hasZero(word ^ slashes) || hasZero(word ^ extras) { break }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x22 || byte == 0x5C || byte < 0x20 || byte == extra { return index }
            index += 1
        }
        return index
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("bad \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw fail("bad \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
