import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

/// The bridge's hand-written JSON scanner and the envelope decoder on top of it.
///
/// - A document the scanner reads as a ``JSONValue`` is also accepted by its grammar-only pass
///   (`skipValue`, what the envelope uses for `params`) over the same bytes.
/// - Round trip: the value written by `BridgeJSON.write` reads back to the same value, and
///   writing that gives the same text.
/// - No accepted value nests deeper than `maxDepth`; every rejection is `malformed`.
/// - The decoder answers every message with a message or a failure coded `malformed` or
///   `payload_too_large` (the only codes it documents), and enforces its size limit.
enum BridgeChecks {
    struct Echo: BridgeModule {
        let name = "probe"
        var allowedOrigins: [OriginPattern] = ["https://app.example.com"]
        struct Sum: Codable, Sendable {
            var a: Int
            var b: Int
        }
        var actions: [BridgeAction] {
            [Action("echo") { (value: JSONValue, _) in value }, Action("add") { (p: Sum, _) in p.a + p.b }]
        }
    }

    static let decoder = BridgeDecoder(modules: [Echo()])
    static let smallDecoder = BridgeDecoder(maxMessageBytes: 64, modules: [Echo()])

    static func check(_ bytes: [UInt8]) throws {
        try scanner(bytes)
        try envelope(bytes)
    }

    /// Reads `bytes` as one JSON document: the value, or the failure.
    static func read(_ bytes: [UInt8]) -> Result<JSONValue, any Error> {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = BridgeJSONScanner(buffer)
            do {
                scanner.skipWhitespace()
                let value = try scanner.jsonValue()
                scanner.skipWhitespace()
                guard scanner.atEnd else { throw scanner.fail("trailing characters") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
    }

    static func skim(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = BridgeJSONScanner(buffer)
            guard (try? scanner.skipValue()) != nil else { return false }
            scanner.skipWhitespace()
            return scanner.atEnd
        }
    }

    static func depth(_ value: JSONValue) -> Int {
        switch value {
        case .array(let items): 1 + (items.map(depth).max() ?? 0)
        case .object(let members): 1 + (members.values.map(depth).max() ?? 0)
        default: 0
        }
    }

    static func scanner(_ bytes: [UInt8]) throws {
        switch read(bytes) {
        case .failure(let error):
            guard let failure = error as? BridgeFailure, case .malformed = failure else {
                throw FuzzViolation(description: "the scanner rejected with \(error), not malformed")
            }
        case .success(let value):
            try require(skim(bytes), "jsonValue accepts what skipValue rejects")
            try require(depth(value) <= BridgeJSONScanner.maxDepth, "accepted nesting \(depth(value)) > \(BridgeJSONScanner.maxDepth)")
            let written: String
            do { written = try BridgeJSON.write(value) } catch {
                throw FuzzViolation(description: "BridgeJSON.write failed on a value the scanner read: \(error)")
            }
            guard case .success(let again) = read(Array(written.utf8)) else {
                throw FuzzViolation(description: "the scanner rejects what BridgeJSON.write wrote: \(written.prefix(200))")
            }
            try require(again == value, "round trip changed the value: \(written.prefix(200))")
            try require((try? BridgeJSON.write(again)) == written, "writing is not stable")
        }
    }

    static func envelope(_ bytes: [UInt8]) throws {
        let message = text(bytes)
        let documented: Set<String> = ["malformed", "payload_too_large"]
        for (decoder, limit) in [(decoder, BridgeDecoder.defaultMaxMessageBytes), (smallDecoder, 64)] {
            switch decoder.decode(message) {
            case .failure(let failure):
                try require(documented.contains(failure.failure.code), "decoder failed with \(failure.failure.code)")
                if message.utf8.count > limit {
                    try require(failure.failure.code == "payload_too_large", "an oversized message failed as \(failure.failure.code)")
                }
                if let id = failure.callID { try require((0...BridgeDecoder.maxCallID).contains(id), "peeked call id \(id) out of range") }
            case .success(let decoded):
                try require(message.utf8.count <= limit, "a message of \(message.utf8.count) bytes passed a limit of \(limit)")
                switch decoded {
                case .call(let call):
                    try require((0...BridgeDecoder.maxCallID).contains(call.id), "call id \(call.id) out of range")
                    try require(call.size == message.utf8.count, "call size \(call.size) for \(message.utf8.count) bytes")
                    if let timeout = call.timeoutMilliseconds { try require(timeout >= 1, "timeout \(timeout)") }
                case .hello(let nonce):
                    if let nonce { try require(!nonce.isEmpty && nonce.utf8.count <= 256, "hello nonce of \(nonce.utf8.count) bytes") }
                case .cancel(let id, _):
                    try require((0...BridgeDecoder.maxCallID).contains(id), "cancel id \(id) out of range")
                }
            }
        }
    }
}
