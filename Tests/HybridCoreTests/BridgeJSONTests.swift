import Foundation
import Testing
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

@Suite("Bridge JSON fast paths write what JSONDecoder reads back")
struct BridgeJSONTests {
    @Test(arguments: ["", "plain", "quote\" back\\slash", "line\nfeed\r\ttab", "\u{0}\u{1}\u{1f}", "é😀", "\u{2028}\u{2029}", "€ uses 0xE2"])
    func stringsRoundTrip(_ text: String) throws {
        let quoted = BridgeJSON.quote(text)
        #expect(try JSONDecoder().decode(String.self, from: Data(quoted.utf8)) == text)
        #expect(!quoted.contains("\u{2028}") && !quoted.contains("\u{2029}"))
    }

    @Test func valuesRoundTrip() throws {
        let value: JSONValue = ["a": [1, 2.5, -3e-7, 1e300, nil, true, "x\"y"], "b": ["c": [:]], "": []]
        let text = try BridgeJSON.write(value)
        #expect(try JSONValue(jsonText: text) == value)
        #expect(try BridgeJSON.encode(value) == text)
    }

    @Test func scalarsAndEmptyTakeTheFastPath() throws {
        #expect(try BridgeJSON.encode(BridgeEmpty()) == "null")
        #expect(try BridgeJSON.encode(42) == "42")
        #expect(try BridgeJSON.encode(2.5) == "2.5")
        #expect(try BridgeJSON.encode(true) == "true")
        #expect(try BridgeJSON.encode("a\"b") == #""a\"b""#)
        #expect(try BridgeJSON.encode(["k": 1]) == #"{"k":1}"#)
    }

    @Test func nonFiniteNumbersAreRefused() {
        #expect(throws: BridgeFailure.self) { try BridgeJSON.encode(Double.nan) }
        #expect(throws: BridgeFailure.self) { try BridgeJSON.write(["x": .number(.infinity)]) }
    }

    @Test func errorObjectsAreJSON() throws {
        let text = BridgeWire.failure(id: 3, .module(code: "x\"y", message: "line\nbreak", data: ["k": [1]]))
        let parsed = try JSONValue(jsonText: text)
        #expect(parsed["error"]?["code"] == "x\"y")
        #expect(parsed["error"]?["message"] == "line\nbreak")
        #expect(parsed["error"]?["data"] == ["k": [1]])
    }

    @Test func bytesAreBase64Objects() throws {
        let bytes = BridgeBytes(Data([0, 1, 254, 255]))
        #expect(try BridgeJSON.encode(bytes) == #"{"$bytes":"AAH+/w=="}"#)
        #expect(try BridgeJSON.encode(Data([1])) == #"{"$bytes":"AQ=="}"#)
        #expect(try JSONDecoder().decode(BridgeBytes.self, from: Data(#"{"$bytes":"AAH+/w=="}"#.utf8)) == bytes)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(BridgeBytes.self, from: Data(#"{"$bytes":"%%"}"#.utf8)) }
    }
}
