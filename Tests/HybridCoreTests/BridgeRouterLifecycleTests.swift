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

@Suite("Bridge calls end exactly once: timeouts, cancellation, floods, dead engines")
@MainActor
struct BridgeRouterLifecycleTests {
    @Test func aCallTimesOutWithItsOwnTimeout() async {
        let router = await makeRouter()
        // `wait` never returns by itself: only the timeout can answer this call.
        let response = await router.receive(Wire.call(id: 1, action: "wait", timeout: 50), origin: appOrigin)
        #expect(Wire.code(response) == "timeout")
        #expect(Wire.object(response)?["error"]?["data"]?["timeout"] == 50)
        #expect(router.pendingCount == 0)
    }

    @Test func theDefaultAndMaximumTimeoutsApply() async {
        let router = await makeRouter(limits: .init(defaultTimeout: .milliseconds(30), maxTimeout: .milliseconds(60)))
        #expect(Wire.code(await router.receive(Wire.call(id: 1, action: "wait"), origin: appOrigin)) == "timeout")
        let capped = await router.receive(Wire.call(id: 2, action: "wait", timeout: 3_600_000), origin: appOrigin)
        #expect(Wire.object(capped)?["error"]?["data"]?["timeout"] == 60)
    }

    @Test func aHandlerThatIgnoresCancellationIsStillAnsweredOnTime() async {
        var completions: [BridgeCompletion] = []
        let probe = ProbeModule()
        let router = await makeRouter(probe: probe)
        router.onCompletion = { completions.append($0) }
        let response = await router.receive(Wire.call(id: 3, action: "stubborn", timeout: 20), origin: appOrigin)
        #expect(Wire.code(response) == "timeout")
        // Once the handler has returned, its late value goes back to the router; a call made
        // after that is the barrier. Still one completion for call 3.
        #expect(await eventually(.seconds(10)) { probe.stubbornReturned.value == 1 })
        #expect(Wire.value(await router.receive(Wire.call(id: 4, action: "add", params: #"{"a":1,"b":1}"#), origin: appOrigin)) == 2)
        #expect(completions.count == 2)
        #expect(completions.filter { $0.callID == 3 }.count == 1)
    }

    @Test func cancelByIDStopsTheHandlerAndAnswersCancelled() async {
        let router = await makeRouter()
        async let call = router.receive(Wire.call(id: 4, action: "wait"), origin: appOrigin)
        #expect(await eventually { router.pendingCount == 1 })
        let ack = await router.receive(Wire.cancel(4), origin: appOrigin)
        #expect(Wire.object(ack)?["t"] == "ack")
        #expect(Wire.code(await call) == "cancelled")
        #expect(router.pendingCount == 0)
    }

    @Test func aCancelFromAnotherDocumentCancelsNothing() async {
        let router = await makeRouter()
        async let call = router.receive(Wire.call(id: 5, action: "wait", timeout: 100), origin: appOrigin)
        #expect(await eventually { router.pendingCount == 1 })
        _ = await router.receive(Wire.cancel(5, nonce: "other"), origin: appOrigin)
        _ = await router.receive(Wire.cancel(6), origin: appOrigin)
        #expect(router.pendingCount == 1)
        #expect(Wire.code(await call) == "timeout")
    }

    @Test func progressArrivesInOrderBeforeTheReply() async {
        let router = await makeRouter()
        var seen: [String] = []
        router.outbound = { text, _ in seen.append(text) }
        let response = await router.receive(Wire.call(id: 7, action: "steps", params: "3"), origin: appOrigin)
        seen.append(response.text ?? "")
        let kinds = seen.compactMap { try? JSONValue(jsonText: $0) }
        #expect(kinds.map { $0["t"] } == ["progress", "progress", "progress", "reply"])
        #expect(kinds.prefix(3).map { $0["value"] } == [1, 2, 3])
        #expect(kinds.prefix(3).allSatisfy { $0["id"] == 7 })
    }

    @Test func failAllFailsEveryPendingCallExactlyOnce() async {
        let probe = ProbeModule()
        let router = await makeRouter(probe: probe)
        var completions: [BridgeCompletion] = []
        router.onCompletion = { completions.append($0) }
        let responses = await withTaskGroup(of: ScriptReply.self) { group in
            for id in 1...50 {
                group.addTask { await router.receive(Wire.call(id: id, action: id % 2 == 0 ? "wait" : "stubborn"), origin: appOrigin) }
            }
            #expect(await eventually { router.pendingCount == 50 })
            #expect(router.failAll(.engineTerminated(.crashed)) == 50)
            #expect(router.failAll(.engineTerminated(.crashed)) == 0)
            var all: [ScriptReply] = []
            for await response in group { all.append(response) }
            return all
        }
        #expect(responses.count == 50)
        #expect(responses.allSatisfy { Wire.code($0) == "engine_terminated" })
        // Once the 25 stubborn handlers have returned, their late values go back to the router;
        // a call made after that is the barrier (the router's document is unchanged).
        #expect(await eventually(.seconds(10)) { probe.stubbornReturned.value == 25 })
        #expect(Wire.value(await router.receive(Wire.call(id: 51, action: "add", params: #"{"a":1,"b":1}"#), origin: appOrigin)) == 2)
        #expect(completions.popLast()?.callID == 51)
        #expect(completions.count == 50)
        #expect(Set(completions.map(\.callID)).count == 50)
        #expect(completions.allSatisfy { $0.code == "engine_terminated" })
    }

    @Test func aFloodIsBoundedAndEveryCallIsAnswered() async {
        let limits = BridgeRouter.Limits(maxInFlight: 64, defaultTimeout: .seconds(60))
        let log = LogBook()
        let router = await makeRouter(limits: limits, log: log)
        var peak = 0
        let codes = await withTaskGroup(of: String?.self) { group in
            for id in 1...10_000 {
                group.addTask { Wire.code(await router.receive(Wire.call(id: id, action: "wait"), origin: appOrigin)) }
            }
            // Every message has arrived once all but the 64 running ones were refused.
            #expect(await eventually(.seconds(30)) { log.codes.filter { $0 == "queue_full" }.count == 10_000 - 64 })
            peak = router.pendingCount
            router.failAll(.cancelled)
            var codes: [String?] = []
            for await code in group { codes.append(code) }
            return codes
        }
        #expect(peak == 64)
        #expect(codes.count == 10_000)
        #expect(codes.filter { $0 == "queue_full" }.count == 10_000 - 64)
        #expect(codes.filter { $0 == "cancelled" }.count == 64)
    }

    @Test func inFlightBytesAreBoundedToo() async {
        let router = await makeRouter(limits: .init(maxInFlightBytes: 4096))
        let big = "\"" + String(repeating: "x", count: 3000) + "\""
        let bigWait = Wire.call(id: 1, action: "wait", timeout: 200).replacingOccurrences(of: #""params":{}"#, with: #""params":{},"pad":\#(big)"#)
        async let first = router.receive(bigWait, origin: appOrigin)
        #expect(await eventually { router.pendingCount == 1 })
        let second = await router.receive(bigWait.replacingOccurrences(of: #""id":1"#, with: #""id":2"#), origin: appOrigin)
        #expect(Wire.code(second) == "queue_full")
        #expect(Wire.code(await first) == "timeout")
    }

    @Test func eventsGoToTheCurrentDocumentOnlyAndInOrder() async throws {
        let router = await makeRouter()
        var delivered: [(String, BridgeDocument)] = []
        router.outbound = { delivered.append(($0, $1)) }
        for index in 0..<100 { try router.emit("tick", index) }
        let first = try #require(router.document)
        router.beginDocument()
        #expect(try router.emit("lost", 0) == false)   // no hello yet: nobody listens
        _ = await router.receive(Wire.hello("n2"), origin: appOrigin)
        try router.emit("tick", 100)
        #expect(delivered.count == 101)
        let payloads = delivered.compactMap { try? JSONValue(jsonText: $0.0) }.map { $0["payload"] }
        #expect(payloads == (0...100).map { JSONValue.number(Double($0)) })
        #expect(delivered.prefix(100).allSatisfy { $0.1 == first })
        #expect(delivered.last?.1 != first)
    }

    @Test func afterTheEngineDiesNothingIsDeliveredToTheOldDocument() async {
        let router = await makeRouter()
        async let call = router.receive(Wire.call(id: 1, action: "wait"), origin: appOrigin)
        #expect(await eventually { router.pendingCount == 1 })
        router.endDocument()
        #expect(await call == .dropped)
        #expect((try? router.emit("x", 1)) == false)
    }
}
