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

/// The transport ships as `hybrid-transport.js` beside `hybrid.js`; the container fills in its
/// configuration (the end-to-end suites run it on both engines).
@Suite("Bridge transport script")
struct BridgeTransportScriptTests {
    @Test func theShippedTransportGetsItsConfigurationFilledIn() throws {
        #expect(BridgeTransportScript.transportSource.contains(BridgeTransportScript.configPlaceholder))
        let source = BridgeTransportScript.source(handlerName: "hybrid", replies: true, issuedNonce: false)
        #expect(!source.contains(BridgeTransportScript.configPlaceholder))
        #expect(!source.contains("is missing from the bundle"))
        let call = try #require(source.range(of: "})(", options: .backwards))
        let tail = source[call.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)
        let config = try JSONValue(jsonText: String(tail.dropLast(2)))  // without `);`
        #expect(config == ["handler": "hybrid", "replies": true, "issued": false])
        let other = BridgeTransportScript.source(handlerName: "h\"x", replies: false, issuedNonce: true)
        #expect(other.contains(#""handler":"h\"x""#))
    }

    @Test func anEmptyAnswerIsDiscardedByTheTransport() {
        // ScriptReply.dropped is an empty string: the transport's fromNative returns on it.
        #expect(ScriptReply.dropped == .string("") && ScriptReply.dropped.text == nil)
        #expect(BridgeTransportScript.transportSource.contains("text.length === 0) return;"))
    }
}
