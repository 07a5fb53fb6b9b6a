import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import HybridFixtures

/// A module with one action per behaviour the router must handle.
struct ProbeModule: BridgeModule {
    let name = "probe"
    var allowedOrigins: [OriginPattern] = ["https://app.example.com"]
    /// How many `stubborn` handlers have returned (after their caller was already answered).
    let stubbornReturned = Locked(0)

    struct Sum: Codable, Sendable {
        var a: Int
        var b: Int
    }

    var actions: [BridgeAction] {
        [
            Action("echo") { (value: JSONValue, _) in value },
            Action("add") { (p: Sum, _) in p.a + p.b },
            Action("steps") { (count: Int, ctx) in
                for step in 1...max(1, count) { await ctx.progress(step) }
                return "done"
            },
            Action("wait") { (_: Empty, ctx) -> Int in
                // Sleeps until cancelled (timeout, abort, navigation, fail-all).
                while !ctx.isCancelled { try await Task.sleep(for: .milliseconds(5)) }
                throw BridgeFailure.cancelled
            },
            Action("stubborn") { [stubbornReturned] (_: Empty, _) in
                // Ignores cancellation: the router must answer anyway, exactly once. (The sleep is
                // the slow handler under test, not synchronisation.)
                try? await Task.sleep(for: .milliseconds(200))
                stubbornReturned.mutate { $0 += 1 }
                return "late"
            },
            Action("refuse") { (_: Empty, _) -> Int in
                throw BridgeFailure.module(code: "not_found", message: "no such thing", data: ["key": "x"])
            },
            Action("crash") { (_: Empty, _) -> Int in
                struct Oops: Error {}
                throw Oops()
            },
            Action("nan") { (_: Empty, _) in Double.nan },
        ]
    }
}

enum Wire {
    static func call(id: Int, module: String = "probe", action: String, params: String = "{}",
                     nonce: String? = "n1", timeout: Int? = nil) -> String {
        var text = #"{"v":1,"id":\#(id),"module":"\#(module)","action":"\#(action)","params":\#(params)"#
        if let nonce { text += #","nonce":"\#(nonce)""# }
        if let timeout { text += #","timeout":\#(timeout)"# }
        return text + "}"
    }

    static func hello(_ nonce: String = "n1") -> String { #"{"t":"hello","v":1,"nonce":"\#(nonce)"}"# }
    static func cancel(_ id: Int, nonce: String = "n1") -> String { #"{"t":"cancel","v":1,"id":\#(id),"nonce":"\#(nonce)"}"# }

    /// The parsed reply object of a response.
    static func object(_ response: ScriptReply) -> JSONValue? {
        guard let text = response.text else { return nil }
        return try? JSONValue(jsonText: text)
    }

    static func code(_ response: ScriptReply) -> String? { object(response)?["error"]?["code"]?.stringValue }
    static func value(_ response: ScriptReply) -> JSONValue? { object(response)?["value"] }
}

let appOrigin = BridgeOrigin(scheme: "https", host: "app.example.com")
let evilOrigin = BridgeOrigin(scheme: "https", host: "evil.example.net")

/// A router with the probe module and a document that said hello with nonce `n1`.
@MainActor
func makeRouter(limits: BridgeRouter.Limits = BridgeRouter.Limits(), log: LogBook? = nil, probe: ProbeModule = ProbeModule()) async -> BridgeRouter {
    let router = BridgeRouter(modules: [probe], limits: limits)
    if let log { router.logger = { log.entries.append($0) } }
    router.beginDocument()
    _ = await router.receive(Wire.hello(), origin: appOrigin)
    return router
}

@MainActor
final class LogBook {
    var entries: [BridgeLogEntry] = []
    var codes: [String] { entries.map(\.code) }
}

/// Whether `condition` came to hold within `timeout` (yielding the main actor meanwhile): the
/// shared ``HybridFixtures/eventually(_:timeout:_:)`` as a value to `#expect`.
@MainActor
func eventually(_ timeout: Duration = .seconds(2), _ condition: () -> Bool) async -> Bool {
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    return (try? await HybridFixtures.eventually("a condition", timeout: seconds) { condition() }) != nil
}
