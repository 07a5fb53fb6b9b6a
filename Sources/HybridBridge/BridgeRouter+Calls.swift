import Foundation
import HybridBase
import HybridEngine

extension BridgeRouter {
    /// Handles one message from the page and returns what to answer.
    ///
    /// Checks, in order: size (before parsing), format, the document nonce, the module and
    /// action, the origin allowlist, the params, the in-flight bounds. A call that passes runs
    /// its handler and is answered with its result, a timeout, a cancellation, or
    /// ``ScriptReply/dropped`` when its document went away meanwhile.
    /// - Parameters:
    ///   - text: The message as the page sent it.
    ///   - origin: The origin of the main frame's current document.
    ///   - source: ``Source/mainFrame`` only for messages the host itself fetched from the main frame.
    public func receive(_ text: String, origin: BridgeOrigin?, source: Source = .document) async -> ScriptReply {
        switch answer(text, origin: origin, source: source) {
        case .now(let response): response
        case .later(let work): await work()
        }
    }

    /// Handles one message as ``receive(_:origin:source:)`` does, answering at once when nothing
    /// has to wait: a refusal, a hello, a cancel, a call of an ``BridgeAction/immediate(_:_:)``
    /// action. Otherwise the answer is the call's work, to be awaited at once.
    public func answer(_ text: String, origin: BridgeOrigin?, source: Source = .document) -> ScriptAnswer {
        switch withBytes({ decoder.decode(text) }) {
        case .failure(let failure):
            log(.warning, failure.failure, origin: origin)
            return .now(.string(BridgeWire.failure(id: failure.callID, failure.failure)))
        case .success(.hello(let nonce)):
            return .now(hello(nonce: nonce, origin: origin, source: source))
        case .success(.cancel(let id, let nonce)):
            if let document = admit(nonce: nonce, source: source), let token = calls.token(generation: document.generation, id: id) {
                finish(token, .failure(.cancelled))
            }
            return .now(.string(#"{"t":"ack"}"#))
        case .success(.call(let call)):
            return handle(call, origin: origin, source: source)
        }
    }

    private func hello(nonce: String?, origin: BridgeOrigin?, source: Source) -> ScriptReply {
        guard nonceMode == .announced, source == .document else {
            let failure = BridgeFailure.denied("this container issues document nonces itself")
            log(.warning, failure, origin: origin)
            return .string(BridgeWire.failure(id: nil, failure))
        }
        // A hello without a nonce is a new document asking for one: made here, where randomness
        // is cheap (in the transport's world, `crypto.getRandomValues` cost 1.5 ms a document).
        let nonce = nonce ?? Self.makeNonce()
        if document?.nonce != nonce { adoptAnnounced(nonce: nonce) }
        return .string(BridgeWire.helloAck(info(for: origin), nonce: nonce))
    }

    /// What the runtime learns at hello: `hybrid.version`, `hybrid.capabilities`, the modules.
    ///
    /// An origin no module admits learns only that it may call nothing: no version, no
    /// capabilities (default deny reaches what the container says about itself).
    public func info(for origin: BridgeOrigin?) -> JSONValue {
        let modules = moduleNames(for: origin)
        guard !modules.isEmpty else { return ["modules": []] }
        return [
            "version": .string(Self.version),
            "capabilities": capabilities,
            "modules": .array(modules.map(JSONValue.string)),
            "maxMessageBytes": .number(Double(limits.maxMessageBytes)),
        ]
    }

    /// The current document, if `nonce` is its nonce (or the host vouches for the source).
    func admit(nonce: String?, source: Source) -> BridgeDocument? {
        guard let document else { return nil }
        if source == .mainFrame { return document }
        guard let expected = document.nonce, let nonce, nonce == expected else { return nil }
        return document
    }

    private func handle(_ call: BridgeCall, origin: BridgeOrigin?, source: Source) -> ScriptAnswer {
        func refuse(_ failure: BridgeFailure, level: BridgeLogEntry.Level = .info) -> ScriptAnswer {
            log(level, failure, origin: origin, module: call.module, action: call.action)
            return .now(.string(BridgeWire.failure(id: call.id, failure)))
        }
        guard let document = admit(nonce: call.nonce, source: source) else {
            return refuse(.denied("the call does not come from the current document"), level: .warning)
        }
        let action: BridgeAction
        let params: any Sendable
        switch call.resolution {
        case .unknownModule:
            return refuse(.unknownModule(call.module))
        case .unknownAction:
            return refuse(.unknownAction(module: call.module, action: call.action))
        case .badParams(let reason, let allowed):
            guard allowed.admits(origin) else { return refuse(deniedOrigin(origin, call), level: .warning) }
            return refuse(.badParams(module: call.module, action: call.action, reason: reason))
        case .ready(let handler, let decoded, let allowed):
            guard allowed.admits(origin) else { return refuse(deniedOrigin(origin, call), level: .warning) }
            action = handler
            params = decoded
        }
        guard !calls.contains(generation: document.generation, id: call.id) else {
            return refuse(.malformed("call id \(call.id) is already in flight"), level: .warning)
        }
        guard calls.count < limits.maxInFlight, calls.bytes + call.size <= limits.maxInFlightBytes else {
            return refuse(.queueFull(limit: limits.maxInFlight), level: .warning)
        }
        let generation = document.generation
        if let invokeNow = action.invokeNow {
            return .now(runNow(call, invokeNow, params: params, origin: origin, generation: generation))
        }
        return .later { [self] in await run(call, action: action, params: params, origin: origin, generation: generation) }
    }

    /// Runs an immediate action's call to its end: nothing can cancel or time out a handler
    /// that never suspends, so the call is never in the table of pending calls.
    private func runNow(_ call: BridgeCall, _ invoke: @MainActor (any Sendable, BridgeCallContext) throws -> String,
                        params: any Sendable, origin: BridgeOrigin?, generation: Int) -> ScriptReply {
        var context = BridgeCallContext(callID: call.id, module: call.module, action: call.action, origin: origin,
                                        availableModules: moduleNames(for: origin), document: generation)
        context.byteBinding = byteBinding
        let result: Result<String, BridgeFailure>
        do { result = .success(try invoke(params, context)) } catch { result = .failure(BridgeFailure(error)) }
        return complete(id: call.id, module: call.module, action: call.action, generation: generation, result)
    }

    private func deniedOrigin(_ origin: BridgeOrigin?, _ call: BridgeCall) -> BridgeFailure {
        .denied("origin \(origin?.description ?? "(none)") may not call \(call.module)")
    }

    private func run(_ call: BridgeCall, action: BridgeAction, params: any Sendable, origin: BridgeOrigin?,
                     generation: Int) async -> ScriptReply {
        let requested = call.timeoutMilliseconds.map { Duration.milliseconds($0) } ?? limits.defaultTimeout
        let timeout = min(requested, limits.maxTimeout)
        let timeoutMilliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let modules = moduleNames(for: origin)
        let token = calls.insert(.init(id: call.id, module: call.module, action: call.action, generation: generation,
                                       bytes: call.size, timeoutMilliseconds: timeoutMilliseconds, continuation: nil))
        var context = BridgeCallContext(
            callID: call.id, module: call.module, action: call.action, origin: origin, availableModules: modules,
            document: generation, progress: { [weak self] text in self?.progress(token, id: call.id, valueJSON: text) })
        context.byteBinding = byteBinding
        // The handler runs in a task of its own, so a timeout, an abort or a navigation can
        // cancel it, and that task starts at once on the main actor: a handler that does not
        // suspend finishes before `ImmediateTask.start` returns, its answer is taken from
        // `answered`, and the call costs no continuation and no hop through the main queue.
        let task = ImmediateTask.start { [weak self] in
            do {
                let value = try await action.invoke(params, context)
                self?.finish(token, .success(value))
            } catch {
                self?.finish(token, .failure(BridgeFailure(error)))
            }
        }
        if let response = answered.removeValue(forKey: token) { return response }
        calls.attach(token, task: task)
        deadlines.add(token, at: .now + timeout)
        // Nothing else runs on the main actor until this suspends, so the call is still pending here.
        return await withCheckedContinuation { continuation in
            calls.attach(token, continuation: continuation)
        }
    }

    private func progress(_ token: UInt64, id: Int, valueJSON: String) {
        guard let generation = calls.generation(of: token), let document, document.generation == generation else { return }
        outbound?(BridgeWire.progress(id: id, valueJSON: valueJSON), document)
    }

    /// Answers a pending call once; later answers for the same call are ignored.
    func finish(_ token: UInt64, _ result: Result<String, BridgeFailure>) {
        var result = result
        // A result that arrives after the deadline is a timeout, whether or not the timer (which
        // needs the main actor) got to run first: the page may already have given up.
        if case .success = result, deadlines.hasExpired(token), let ms = calls.timeoutMilliseconds(of: token) {
            result = .failure(.timeout(milliseconds: ms))
        }
        guard let entry = calls.remove(token) else { return }
        entry.task?.cancel()
        deadlines.remove(token)
        let response = complete(id: entry.id, module: entry.module, action: entry.action, generation: entry.generation, result)
        if let continuation = entry.continuation { continuation.resume(returning: response) } else { answered[token] = response }
    }

    /// The answer to a call that has ended, reported to ``onCompletion``; dropped (and logged)
    /// when the call's document is no longer the current one.
    private func complete(id: Int, module: String, action: String, generation: Int,
                          _ result: Result<String, BridgeFailure>) -> ScriptReply {
        let delivered = generation == document?.generation
        let text: String
        let code: String?
        switch result {
        case .success(let value):
            text = BridgeWire.success(id: id, valueJSON: value)
            code = nil
        case .failure(let failure):
            text = BridgeWire.failure(id: id, failure)
            code = failure.code
        }
        if !delivered {
            logger?(BridgeLogEntry(level: .info, code: "dropped", message: "reply to call \(id) dropped: its document is gone",
                                   module: module, action: action))
        }
        onCompletion?(BridgeCompletion(callID: id, module: module, action: action, code: code, delivered: delivered))
        return delivered ? .string(text) : .dropped
    }

    func dropCalls(except generation: Int) {
        for token in calls.tokens(notIn: generation) { finish(token, .failure(.cancelled)) }
    }

    /// Runs `body` with the view's byte store bound (``BridgeByteStore/bound``), if it has one.
    func withBytes<T>(_ body: () throws -> T) rethrows -> T {
        guard let byteBinding else { return try body() }
        return try BridgeByteStore.$bound.withValue(byteBinding, operation: body)
    }
}
