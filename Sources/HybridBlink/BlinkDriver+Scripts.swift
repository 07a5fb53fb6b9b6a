#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// Session setup, script evaluation in worlds and script messages.
extension BlinkDriver {
    /// Enables the domains a view needs and installs its user content, then calls `done`.
    func configureSession(_ session: String, done: @escaping @MainActor () -> Void) {
        let browser = browser
        func send(_ method: String, _ params: [String: JSONValue] = [:]) { browser.send(method, params, session: session) }
        send("Page.enable")
        send("Page.setLifecycleEventsEnabled", ["enabled": true])
        send("Runtime.enable")
        // The driver reads no body from Network events, and without a limit Chromium copies every
        // request body into requestWillBeSent as base64 on this pipe (a page's 50 MB upload took
        // 5–6 s that way); the bodies Fetch pauses (requestPaused) are not limited by it.
        send("Network.enable", ["maxPostDataSize": 1])
        send("Inspector.enable")
        configureData(session)
        let size = configuration.viewportSize
        send("Emulation.setDeviceMetricsOverride", [
            "width": .number(Double(size.width)), "height": .number(Double(size.height)), "deviceScaleFactor": 1, "mobile": false,
        ])
        var patterns: [JSONValue] = [
            ["urlPattern": "*", "resourceType": "Document", "requestStage": "Request"],
            ["urlPattern": "*", "resourceType": "Document", "requestStage": "Response"],
            // Chromium's own favicon requests are of this type; they are answered in requestPaused.
            ["urlPattern": "*", "resourceType": "Other", "requestStage": "Request"],
        ]
        for scheme in configuration.schemeHandlers.keys.sorted() where !(scheme == BridgeByteChannel.scheme && byteRoute != nil) {
            patterns.append(["urlPattern": .string("\(scheme):*"), "requestStage": "Request"])
        }
        if let byteRoutePattern { patterns.append(byteRoutePattern) }
        send("Fetch.enable", ["patterns": .array(patterns)])
        send("Runtime.addBinding", ["name": .string(BlinkUserContent.titleBinding), "executionContextName": .string(BlinkUserContent.titleWorld)])
        addDocumentScript(BlinkUserContent.titleWatcher, world: BlinkUserContent.titleWorld, send: send)
        for handler in configuration.messageHandlers {
            var binding: [String: JSONValue] = ["name": .string(BlinkUserContent.bindingName(handler))]
            if let world = handler.world.name { binding["executionContextName"] = .string(world) }
            send("Runtime.addBinding", binding)
            addDocumentScript(BlinkUserContent.handlerShim(handler), world: handler.world.name, send: send)
        }
        for sheet in configuration.userStyleSheets {
            addDocumentScript(BlinkUserContent.source(sheet), world: BlinkUserContent.styleWorld, send: send)
        }
        for script in configuration.userScripts {
            addDocumentScript(BlinkUserContent.source(script), world: script.world.name, send: send)
        }
        browser.withUserAgent { [configuration] agent in
            if let agent, let name = configuration.applicationNameForUserAgent {
                send("Network.setUserAgentOverride", ["userAgent": .string("\(agent) \(name)")])
            }
            browser.send("Runtime.runIfWaitingForDebugger", session: session) { _ in done() }
        }
    }

    private func addDocumentScript(_ source: String, world: String?, send: (String, [String: JSONValue]) -> Void) {
        var params: [String: JSONValue] = ["source": .string(source)]
        if let world { params["worldName"] = .string(world) }
        send("Page.addScriptToEvaluateOnNewDocument", params)
    }

    // MARK: Evaluation

    /// Evaluates `script` in `world` (`Runtime.evaluate`, by value, as a user gesture); a named world
    /// is an isolated world of the main frame, created when first used. An exception is `.javaScript`.
    public func evaluate(_ script: String, in world: ScriptWorld,
                         completion: @escaping @MainActor @Sendable (Result<JSONValue, any Error>) -> Void) {
        runtimeEvaluate(["expression": .string(script), "returnByValue": true, "userGesture": true], in: world, completion: completion)
    }

    /// Runs `body` as an async function whose parameters are `arguments` (spliced in as JSON
    /// literals) and awaits its Promise; a rejection is `.javaScript`.
    public func callAsync(_ body: String, arguments: [String: JSONValue], in world: ScriptWorld,
                          completion: @escaping @MainActor @Sendable (Result<JSONValue, any Error>) -> Void) {
        // Arguments are the async function's parameters, their values spliced in as JSON literals.
        let names = arguments.keys.sorted()
        let values = names.map { DevToolsJSON.text(arguments[$0]!) }
        let expression = "(async function(\(names.joined(separator: ", "))) {\n\(body)\n}).apply(null, [\(values.joined(separator: ", "))])"
        runtimeEvaluate(["expression": .string(expression), "returnByValue": true, "awaitPromise": true, "userGesture": true],
                        in: world, completion: completion)
    }

    /// `Runtime.evaluate` in the page's world straight away; in a named world once its context is known.
    private func runtimeEvaluate(_ params: [String: JSONValue], in world: ScriptWorld,
                                 completion: @escaping @MainActor @Sendable (Result<JSONValue, any Error>) -> Void) {
        guard let name = world.name else {
            return send("Runtime.evaluate", params) { result in completion(result.flatMap { value in Result { try Self.value(of: value) } }) }
        }
        Task.immediate { @MainActor [weak self] in
            guard let self else { return completion(.failure(HybridError.engine(.closed))) }
            do {
                completion(.success(try await self.runtimeEvaluate(params, inWorld: name)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    private func runtimeEvaluate(_ params: [String: JSONValue], inWorld name: String) async throws -> JSONValue {
        // A context id goes stale when the document changes; look it up again once.
        for attempt in 0..<2 {
            var inWorld = params
            inWorld["contextId"] = .number(Double(try await contextID(forWorld: name)))
            do {
                return try Self.value(of: try await command("Runtime.evaluate", inWorld))
            } catch HybridError.engine(.native(_, _, let message)) where attempt == 0 && message.contains("context") {
                worldContexts[name] = nil
            }
        }
        throw HybridError.engine(.javaScript(message: "world \(name) has no context"))
    }

    /// The main frame's execution context for a named world, created if the page has none yet.
    private func contextID(forWorld name: String) async throws -> Int {
        if let id = worldContexts[name] { return id }
        let frame = try await mainFrameID()
        let created = try await command("Page.createIsolatedWorld", ["frameId": .string(frame), "worldName": .string(name)])
        guard let id = created.int("executionContextId") else { throw HybridError.engine(.javaScript(message: "no world \(name)")) }
        worldContexts[name] = id
        return id
    }

    private func mainFrameID() async throws -> String {
        if let targetID { return targetID }
        _ = try await command("Runtime.evaluate", ["expression": "0"])
        guard let targetID else { throw HybridError.engine(.closed) }
        return targetID
    }

    /// A `Runtime.evaluate` result as JSON, or the exception it threw as `.javaScript`.
    static func value(of result: JSONValue) throws -> JSONValue {
        if let details = result["exceptionDetails"] {
            let exception = details["exception"]
            let message = exception?.string("description")?.split(separator: "\n").first.map(String.init)
                ?? exception?["value"].map { $0.stringValue ?? $0.jsonText }
                ?? details.string("text") ?? "JavaScript exception"
            throw HybridError.engine(.javaScript(message: message))
        }
        guard let remote = result["result"] else { return .null }
        switch remote.string("type") {
        case "undefined": return .null
        case "function", "symbol", "bigint":
            throw HybridError.engine(.resultNotJSON(remote.string("description") ?? remote.string("type") ?? "?"))
        default:
            if let special = remote.string("unserializableValue") {
                return special == "-0" ? .number(0) : .null
            }
            return remote["value"] ?? .null
        }
    }

    // MARK: Script messages

    func executionContextCreated(_ context: JSONValue) {
        guard let id = context.int("id"), let name = context.string("name"), !name.isEmpty,
              context["auxData"]?.string("frameId") == targetID, context["auxData"]?.string("type") == "isolated"
        else { return }
        worldContexts[name] = id
    }

    func executionContextDestroyed(_ id: Int) {
        worldContexts = worldContexts.filter { $0.value != id }
    }

    /// A page called a handler's binding: `"<id>:<s|j><body>"` (id 0 = no reply wanted).
    func bindingCalled(_ params: JSONValue) {
        if params.string("name") == BlinkUserContent.titleBinding {
            pageTitleChanged(params.string("payload") ?? "")
            return
        }
        guard let binding = params.string("name"), let payload = params.string("payload"),
              let context = params.int("executionContextId"),
              let index = configuration.messageHandlers.firstIndex(where: { BlinkUserContent.bindingName($0) == binding }),
              let colon = payload.firstIndex(of: ":")
        else { return }
        let id = String(payload[..<colon])
        let rest = payload[payload.index(after: colon)...]
        let text = String(rest.dropFirst())
        let handler = configuration.messageHandlers[index]
        let message = ScriptMessage(name: handler.name, body: rest.first == "s" ? .string(text) : .json(text))
        guard let host else { return }
        guard case .reply = handler.kind else {
            return host.messagePosted(message, toHandlerAt: index, reply: nil)
        }
        let callID = Double(id) ?? 0
        // A navigation the handler starts waits until its reply is in the page (HeldNavigations);
        // the token follows the handler into the task the contract starts for it.
        let token = replyStarted()
        BlinkReplyScope.$token.withValue(token) {
            host.messagePosted(message, toHandlerAt: index) { [weak self] reply in
                guard let self else { return }
                self.fire("Runtime.callFunctionOn", BlinkUserContent.replyCall(handler, id: callID, reply: reply, context: context)) {
                    [weak self] in self?.replyDelivered(token)
                }
            }
        }
    }
}
#endif
