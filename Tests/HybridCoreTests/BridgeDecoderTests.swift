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

@Suite("Bridge decoder refuses bad messages with typed errors")
struct BridgeDecoderTests {
    let decoder = BridgeDecoder(modules: [ProbeModule()])

    func failure(_ text: String, _ decoder: BridgeDecoder? = nil) -> BridgeDecoder.Failure? {
        if case .failure(let failure) = (decoder ?? self.decoder).decode(text) { return failure }
        return nil
    }

    func decodeCall(_ text: String) -> BridgeCall? {
        if case .success(.call(let call)) = decoder.decode(text) { return call }
        return nil
    }

    @Test func decodesAWellFormedCallWithTypedParams() throws {
        let call = try #require(decodeCall(Wire.call(id: 7, action: "add", params: #"{"a":2,"b":3}"#, timeout: 500)))
        #expect(call.id == 7 && call.module == "probe" && call.action == "add")
        #expect(call.nonce == "n1" && call.timeoutMilliseconds == 500)
        guard case .ready(_, let params, _) = call.resolution else { Issue.record("not resolved"); return }
        let sum = try #require(params as? ProbeModule.Sum)
        #expect(sum.a == 2 && sum.b == 3)
    }

    @Test(arguments: ["", "{", "nope", "[]", "42", "null", #"{"v":1,"id":1"#, "\u{0}\u{1}", #"{"v":1,"id":1,"module":"probe","action":"echo","params":{"a":[1,2,}}"#])
    func malformedJSONIsMalformed(_ text: String) {
        #expect(failure(text)?.failure.code == "malformed")
    }

    @Test(arguments: [
        #"{"v":"1","id":1,"module":"probe","action":"echo"}"#,
        #"{"v":1,"id":"1","module":"probe","action":"echo"}"#,
        #"{"v":1,"id":1.5,"module":"probe","action":"echo"}"#,
        #"{"v":1,"id":-1,"module":"probe","action":"echo"}"#,
        #"{"v":1,"id":1e300,"module":"probe","action":"echo"}"#,
        #"{"v":1,"id":1,"module":7,"action":"echo"}"#,
        #"{"v":1,"id":1,"module":"probe","action":null}"#,
        #"{"v":1,"id":1,"module":"probe","action":"echo","nonce":5}"#,
        #"{"v":1,"id":1,"module":"probe","action":"echo","timeout":0}"#,
        #"{"v":1,"id":1,"module":"probe","action":"echo","timeout":"soon"}"#,
        #"{"v":2,"id":1,"module":"probe","action":"echo"}"#,
        #"{"t":"launch","v":1,"id":1}"#,
        #"{"t":"hello","v":1,"nonce":""}"#,
        #"{"t":"hello","v":1,"nonce":7}"#,
        #"{"t":"cancel","v":1}"#,
    ])
    func wrongTypesAreMalformed(_ text: String) {
        #expect(failure(text)?.failure.code == "malformed")
    }

    @Test func oversizedMessagesAreRefusedBeforeParsing() {
        let small = BridgeDecoder(maxMessageBytes: 1024)
        // Not JSON at all: had it been parsed, the failure would be `malformed`.
        let garbage = #"{"v":1,"id":99,"# + String(repeating: "x", count: 2000)
        let refused = failure(garbage, small)
        #expect(refused?.failure == .payloadTooLarge(size: garbage.utf8.count, limit: 1024))
        #expect(refused?.callID == 99)
    }

    @Test func theLimitCountsUTF8BytesNotCharacters() {
        let text = Wire.call(id: 1, action: "echo", params: "\"" + String(repeating: "é", count: 40) + "\"")
        let small = BridgeDecoder(maxMessageBytes: text.count + 10)
        #expect(text.utf8.count > text.count + 10)
        #expect(failure(text, small)?.failure.code == "payload_too_large")
    }

    @Test func aSixteenMegabyteDefaultIsEnforced() {
        let text = String(repeating: " ", count: BridgeDecoder.defaultMaxMessageBytes + 1)
        #expect(failure(text)?.failure.code == "payload_too_large")
    }

    @Test func unknownModulesAndActionsResolveAsSuch() throws {
        let module = try #require(decodeCall(Wire.call(id: 1, module: "nope", action: "x")))
        guard case .unknownModule = module.resolution else { Issue.record("expected unknown module"); return }
        let action = try #require(decodeCall(Wire.call(id: 1, action: "fly")))
        guard case .unknownAction = action.resolution else { Issue.record("expected unknown action"); return }
    }

    @Test func badParamsSayWhere() throws {
        let wrong = try #require(decodeCall(Wire.call(id: 1, action: "add", params: #"{"a":"two","b":3}"#)))
        guard case .badParams(let reason, _) = wrong.resolution else { Issue.record("expected bad params"); return }
        #expect(reason.contains("params.a"))
        let missing = try #require(decodeCall(Wire.call(id: 1, action: "add", params: #"{"a":1}"#)))
        guard case .badParams(let why, _) = missing.resolution else { Issue.record("expected bad params"); return }
        #expect(why.contains("params.b"))
    }

    @Test func helloAndCancelDecode() {
        guard case .success(.hello(let nonce)) = decoder.decode(Wire.hello("abc")) else { Issue.record(); return }
        #expect(nonce == "abc")
        guard case .success(.hello(let asked)) = decoder.decode(#"{"t":"hello","v":1}"#) else { Issue.record(); return }
        #expect(asked == nil)
        guard case .success(.cancel(let id, let n)) = decoder.decode(Wire.cancel(4)) else { Issue.record(); return }
        #expect(id == 4 && n == "n1")
    }

    @Test(arguments: [
        (#"{"v":1,"id":42,"module":"#, 42), (#"{"id": 7}"#, 7), (#"{"v":1}"#, nil), ("", nil),
        (#"{"v":1,"id":99999999999999999999}"#, nil), (String(repeating: " ", count: 70) + #""id":5"#, nil),
    ] as [(String, Int?)])
    func peekReadsTheIDFromTheFirstBytesOnly(_ text: String, _ id: Int?) {
        #expect(BridgeDecoder.peekCallID(text) == id)
    }

    @Test func deeplyNestedParamsDoNotCrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let result = decoder.decode(Wire.call(id: 1, action: "echo", params: deep))
        switch result {
        case .failure(let failure): #expect(failure.failure.code == "malformed")
        case .success(.call(let call)):
            if case .ready = call.resolution { Issue.record("100k levels should not decode") }
        default: Issue.record("unexpected")
        }
    }
}
