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

/// Random and mutated bridge messages.
struct MessageFuzzer {
    var rng: SplitMix64

    static let seeds = [
        Wire.call(id: 1, action: "add", params: #"{"a":1,"b":2}"#),
        Wire.call(id: 2, action: "echo", params: #"{"s":"x","n":[1,2,{"k":null}],"t":true}"#, timeout: 100),
        Wire.call(id: 3, module: "storage", action: "set", params: #"{"key":"k","value":[1]}"#),
        Wire.hello("abc"),
        Wire.cancel(3),
        #"{"t":"call","v":1,"id":9007199254740991,"module":"probe","action":"echo","params":"é\u0000\ud83d\ude00"}"#,
    ]
    static let fragments = ["{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud800", "null", "true", "-", "1e999",
                            "0.0000001", "9007199254740993", "\"v\"", "\"id\"", "\"t\"", "\"module\"", "\"params\"",
                            "\u{0}", "\u{7f}", "é", "😀", "\u{2028}", " ", "\n", "NaN", "\"hello\"", "\"cancel\""]

    mutating func int(_ bound: Int) -> Int { Int(rng.next() % UInt64(bound)) }

    mutating func randomText() -> String {
        let length = int(120)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            let pick = int(10)
            let value: UInt32 = pick < 7 ? UInt32(32 + int(95)) : pick < 9 ? UInt32(int(0x800)) : UInt32(0x1F600 + int(80))
            if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
        }
        return String(scalars)
    }

    mutating func mutated() -> String {
        var chars = Array(Self.seeds[int(Self.seeds.count)])
        for _ in 0..<(1 + int(4)) {
            guard !chars.isEmpty else { break }
            let at = int(chars.count)
            switch int(5) {
            case 0: chars.remove(at: at)
            case 1: chars.insert(contentsOf: Array(Self.fragments[int(Self.fragments.count)]), at: at)
            case 2: chars[at] = Character(UnicodeScalar(UInt8(32 + int(95))))
            case 3: chars = Array(chars[..<at])
            default:
                let other = int(chars.count)
                chars.swapAt(at, other)
            }
        }
        return String(chars)
    }

    mutating func next() -> String { int(3) == 0 ? randomText() : mutated() }
}

@Suite("Bridge decoder and router survive fuzzing")
struct BridgeFuzzTests {
    static let count = 100_000

    @Test func theDecoderSurvivesRandomAndMutatedMessages() {
        var fuzzer = MessageFuzzer(rng: SplitMix64(seed: 0xB21D_6E))
        let decoder = BridgeDecoder(maxMessageBytes: 4096, modules: [ProbeModule()])
        var decoded = 0, refused = 0
        for _ in 0..<Self.count {
            switch decoder.decode(fuzzer.next()) {
            case .success: decoded += 1
            case .failure(let failure):
                refused += 1
                #expect(["malformed", "payload_too_large"].contains(failure.failure.code))
            }
        }
        #expect(decoded + refused == Self.count)
        #expect(decoded > 1000 && refused > 1000)   // the fuzzer reaches both sides
    }

    @MainActor @Test func theRouterAnswersEveryFuzzedMessageAndKeepsNothingPending() async {
        var fuzzer = MessageFuzzer(rng: SplitMix64(seed: 0x5EED))
        let router = BridgeRouter(modules: [FuzzModule()], limits: .init(maxMessageBytes: 4096, defaultTimeout: .seconds(5)))
        router.beginDocument()
        _ = await router.receive(Wire.hello("n1"), origin: appOrigin)
        var answered = 0, ok = 0, notJSON: [String] = []
        for index in 0..<Self.count {
            // Let other main-actor work (other suites' timers) run between batches.
            if index % 256 == 0 { await Task.yield() }
            let text = fuzzer.next().replacingOccurrences(of: "\"probe\"", with: "\"fuzz\"")
            let response = await router.receive(text, origin: appOrigin)
            if let reply = response.text {
                answered += 1
                if reply.contains(#""ok":true"#) { ok += 1 }
                if (try? JSONSerialization.jsonObject(with: Data(reply.utf8), options: .fragmentsAllowed)) == nil {
                    notJSON.append(reply)
                }
            }
        }
        #expect(notJSON.isEmpty, "replies that are not JSON: \(notJSON.prefix(3))")
        #expect(router.pendingCount == 0)
        #expect(answered >= Self.count - 10)   // only hellos that replaced the document go unanswered
        #expect(ok > 100)
    }
}

/// The probe module's quick actions only: fuzzed calls must never wait.
struct FuzzModule: BridgeModule {
    let name = "fuzz"
    let allowedOrigins: [OriginPattern] = ["*"]
    var actions: [BridgeAction] {
        [
            Action("echo") { (value: JSONValue, _) in value },
            Action("add") { (p: ProbeModule.Sum, _) in p.a &+ p.b },
            Action("set") { (p: [String: JSONValue], _) in p.count },
        ]
    }
}
