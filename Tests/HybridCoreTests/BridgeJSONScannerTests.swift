import Foundation
import HybridFixtures
import Testing
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

@Suite("Bridge JSON scanner reads exactly JSON, bounded")
struct BridgeJSONScannerTests {
    func scan<T>(_ text: String, _ body: (inout BridgeJSONScanner) throws -> T) throws -> T {
        var text = text
        return try text.withUTF8 { bytes in
            var scanner = BridgeJSONScanner(bytes)
            let value = try body(&scanner)
            guard scanner.peek() == nil else { throw BridgeFailure.malformed("trailing") }
            return value
        }
    }

    func skips(_ text: String) -> Bool { (try? scan(text) { try $0.skipValue() }) != nil }

    @Test(arguments: ["0", "-0", "1.5e-3", "1E+9", "true", "false", "null", #""""#, #""a\"b\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#,
                      "[]", "{}", " [ 1 , { \"a\" : [ ] } , \"x\" ] ", #"{"a":{"b":{"c":[null,true,{"d":"e"}]}}}"#, "[[[]]]"])
    func acceptsJSON(_ text: String) {
        #expect(skips(text), "\(text)")
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil)
    }

    @Test(arguments: ["", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul", "[1,]", "[,1]", "{\"a\"}", "{\"a\":}", "{a:1}", "{\"a\":1,}",
                      "[1 2]", "\"\u{1}\"", "\"\\x\"", "\"\\u12\"", "\"open", "[", "{", "]", "NaN", "'x'", "[1]]", "{\"a\":1}}"])
    func refusesNonJSON(_ text: String) {
        #expect(!skips(text), "\(text)")
    }

    @Test func nestingIsBoundedWithoutRecursion() {
        let ok = String(repeating: "[", count: BridgeJSONScanner.maxDepth) + String(repeating: "]", count: BridgeJSONScanner.maxDepth)
        #expect(skips(ok))
        let deep = String(repeating: "[", count: 1_000_000)
        #expect(!skips(deep))
        #expect((try? scan(deep) { try $0.jsonValue() }) == nil)
    }

    @Test func stringsDecodeEscapesAndSurrogates() throws {
        #expect(try scan(#""plain é""#) { try $0.string() } == "plain é")
        #expect(try scan(#""a\nb\u00e9\ud83d\ude00\"""#) { try $0.string() } == "a\nbé😀\"")
        #expect(try scan(#""lone \ud800 x""#) { try $0.string() } == "lone \u{FFFD} x")
    }

    @Test func valuesMatchJSONDecoder() throws {
        let text = #"{"a":[1,2.5,-3e-7,true,null,"s"],"b":{"c":{}},"d":"\u2028"}"#
        let scanned = try scan(text) { try $0.jsonValue() }
        #expect(scanned == (try JSONValue(jsonText: text)))
    }

    @Test func integersAreExact() throws {
        #expect(try scan("42") { try $0.integer("n", in: 0...100) } == 42)
        #expect(try scan("42.0") { try $0.integer("n", in: 0...100) } == 42)
        #expect(throws: BridgeFailure.self) { try scan("42.5") { try $0.integer("n", in: 0...100) } }
        #expect(throws: BridgeFailure.self) { try scan("1e300") { try $0.integer("n", in: 0...Int.max) } }
        #expect(throws: BridgeFailure.self) { try scan("\"1\"") { try $0.integer("n", in: 0...100) } }
    }

    @Test func theWordAtATimeScanAgreesWithAByteLoop() {
        var rng = SplitMix64(seed: 7)
        let alphabet: [UInt8] = [0x61, 0x20, 0x22, 0x5C, 0x01, 0x1F, 0x7F, 0x80, 0xE2, 0xFF, 0x41]
        for _ in 0..<5_000 {
            let count = Int(rng.next() % 40)
            let bytes = (0..<count).map { _ in rng.next() % 5 == 0 ? alphabet[Int(rng.next() % UInt64(alphabet.count))] : 0x61 }
            let start = count == 0 ? 0 : Int(rng.next() % UInt64(count))
            for extra in [nil, UInt8(0xE2)] as [UInt8?] {
                let expected = bytes[start...].firstIndex { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 || $0 == extra } ?? count
                let found = bytes.withUnsafeBufferPointer { BridgeJSONScanner.firstSpecialByte(in: $0, from: start, also: extra) }
                #expect(found == expected)
            }
        }
    }
}
