import Foundation
import HybridCore

extension WebDriverSession {
    /// Runs one command of this session and returns its `value`.
    /// - Throws: ``WebDriverError`` for everything the standard names.
    func perform(_ command: WebDriverCommand, body: JSONValue) async throws -> JSONValue {
        if command.handlesUserPrompts { try handleUserPrompts() }
        switch command {
        case .getTimeouts: return timeouts.json
        case .setTimeouts:
            timeouts = try timeouts.updating(with: body)
            return .null
        case .navigateTo:
            guard let text = body["url"]?.stringValue, let url = URL(string: text), url.scheme != nil else {
                throw WebDriverError(.invalidArgument, "url is not an absolute URL")
            }
            try await navigate(expectingLoad: true) { $0.view.load(url) }
            return .null
        case .currentURL: return .string(currentURL.absoluteString)
        case .back:
            try await navigate(expectingLoad: view.engine.canGoBack) { $0.view.goBack() }
            return .null
        case .forward:
            try await navigate(expectingLoad: view.engine.canGoForward) { $0.view.goForward() }
            return .null
        case .refresh:
            try await navigate(expectingLoad: true) { $0.view.reload() }
            return .null
        case .title:
            let saved = frames
            frames = []
            defer { frames = saved }
            return try await value("title")
        case .pageSource: return try await value("source")
        case .windowHandle: return .string(windowHandle)
        case .windowHandles: return [.string(windowHandle)]
        case .switchToWindow:
            guard body["handle"]?.stringValue == windowHandle else { throw WebDriverError(.noSuchWindow, "this session has one window, \(windowHandle)") }
            return .null
        case .closeWindow:
            end()
            return []
        case .newWindow:
            throw WebDriverError(.unsupportedOperation, "a session drives one container; open another session for another view")
        case .getWindowRect: return try await value("windowRect")
        case .setWindowRect, .maximize, .minimize, .fullscreen:
            throw WebDriverError(.unsupportedOperation, "the view's size is fixed by its configuration (EngineConfiguration.viewportSize)")
        case .switchToFrame: return try await switchToFrame(body["id"] ?? .null)
        case .switchToParentFrame:
            if !frames.isEmpty { frames.removeLast() }
            return .null
        case .findElement, .findElements, .findElementFrom, .findElementsFrom: return try await find(command, body)
        case .activeElement: return issue(try await value("active"))
        case .elementSelected(let id): return try await value("selected", ["id": .string(id)])
        case .elementAttribute(let id, let name): return try await value("attribute", ["id": .string(id), "name": .string(name)])
        case .elementProperty(let id, let name): return issue(try await value("property", ["id": .string(id), "name": .string(name)]))
        case .elementCSS(let id, let name): return try await value("css", ["id": .string(id), "name": .string(name)])
        case .elementText(let id): return try await value("text", ["id": .string(id)])
        case .elementTagName(let id): return try await value("name", ["id": .string(id)])
        case .elementRect(let id): return try await value("rect", ["id": .string(id)])
        case .elementEnabled(let id): return try await value("enabled", ["id": .string(id)])
        case .elementDisplayed(let id): return try await value("displayed", ["id": .string(id)])
        case .elementClick(let id): return try await interact("click", ["id": .string(id)])
        case .elementClear(let id): return try await interact("clear", ["id": .string(id)])
        case .elementSendKeys(let id):
            guard let text = body["text"]?.stringValue else { throw WebDriverError(.invalidArgument, "text is not a string") }
            return try await interact("sendKeys", ["id": .string(id), "text": .string(text)])
        case .executeSync, .executeAsync: return try await execute(body, async: command == .executeAsync)
        case .allCookies, .namedCookie, .addCookie, .deleteCookie, .deleteAllCookies: return try await cookies(command, body)
        case .performActions, .releaseActions:
            throw WebDriverError(.unsupportedOperation, "input actions are not implemented: use element click and send keys (docs/testing.md)")
        case .dismissAlert, .acceptAlert, .alertText, .sendAlertText: return try alert(command, body)
        case .screenshot: return try await screenshot()
        case .elementScreenshot(let id): return try await screenshot(element: id)
        case .unsupported(let name): throw WebDriverError(.unsupportedOperation, "\(name) is not implemented (docs/testing.md)")
        case .newSession, .status, .deleteSession:
            throw WebDriverError(.unknownError, "\(command) is the endpoint's, not a session's")
        }
    }

    /// The top-level document's URL (`about:blank` before the first page).
    var currentURL: URL { view.engine.url ?? URL(string: "about:blank")! }

    private func find(_ command: WebDriverCommand, _ body: JSONValue) async throws -> JSONValue {
        guard let using = body["using"]?.stringValue, let selector = body["value"]?.stringValue else {
            throw WebDriverError(.invalidArgument, "using and value must be strings")
        }
        var arguments: [String: JSONValue] = ["using": .string(using), "value": .string(selector)]
        let single: Bool
        switch command {
        case .findElement: single = true
        case .findElements: single = false
        case .findElementFrom(let root):
            single = true
            arguments["root"] = .string(root)
        case .findElementsFrom(let root):
            single = false
            arguments["root"] = .string(root)
        default: throw WebDriverError(.unknownError, "not a find command")
        }
        // The implicit wait: look again every 50 ms until something matches or the time is up.
        let deadline = Date().addingTimeInterval(Double(timeouts.implicit) / 1000)
        while true {
            let found = try await value("find", arguments).arrayValue ?? []
            if !found.isEmpty || Date() >= deadline {
                if single {
                    guard let first = found.first else {
                        throw WebDriverError(.noSuchElement, "no element matches \(using) \(selector)")
                    }
                    return issue(first)
                }
                return issue(.array(found))
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    /// Click, clear and send keys: page code runs, so a dialog it opens ends the command with
    /// success (the next command meets the dialog), and a navigation it starts is waited for.
    private func interact(_ command: String, _ arguments: [String: JSONValue]) async throws -> JSONValue {
        let load = LoadWatch(engine: view.engine)
        guard case .value(let result) = try await atom(command, arguments) else { return .null }
        if result["navigates"]?.boolValue == true, capabilities.pageLoadStrategy != .none {
            try await waitForLoad(load, startWithin: 1.0)
        }
        return .null
    }

    private func execute(_ body: JSONValue, async: Bool) async throws -> JSONValue {
        guard let script = body["script"]?.stringValue else { throw WebDriverError(.invalidArgument, "script is not a string") }
        guard let arguments = body["args"]?.arrayValue else { throw WebDriverError(.invalidArgument, "args is not an array") }
        switch try await atom("execute", ["args": .array(arguments), "async": .bool(async)], script: script) {
        case .value(let value): return issue(value)
        case .dialogOpened: return .null
        }
    }

    private func switchToFrame(_ id: JSONValue) async throws -> JSONValue {
        switch id {
        case .null:
            frames = []
        case .number(let index):
            guard index >= 0, index <= 65_535, index.rounded() == index else {
                throw WebDriverError(.invalidArgument, "a frame index is an integer in 0...65535")
            }
            let frame = try await value("frame", ["index": .number(index)])
            frames.append(try frameID(frame))
        case .object(let object):
            guard let element = object[WebDriverAtoms.elementKey]?.stringValue else {
                throw WebDriverError(.invalidArgument, "id is not an element reference")
            }
            let frame = try await value("frame", ["id": .string(element)])
            frames.append(try frameID(frame))
        default:
            throw WebDriverError(.invalidArgument, "id is null, a number or an element reference")
        }
        return .null
    }

    private func frameID(_ value: JSONValue) throws -> String {
        guard let id = value.stringValue else { throw WebDriverError(.noSuchFrame, "the frame has no id") }
        issued.insert(id)
        return id
    }

    private func alert(_ command: WebDriverCommand, _ body: JSONValue) throws -> JSONValue {
        guard let open = openDialog else { throw WebDriverError(.noSuchAlert, "no dialog is open") }
        switch command {
        case .alertText: return .string(open.dialog.message)
        case .sendAlertText:
            guard let text = body["text"]?.stringValue else { throw WebDriverError(.invalidArgument, "text is not a string") }
            guard open.dialog.kind == .prompt else {
                throw WebDriverError(.elementNotInteractable, "a \(open.dialog.kind.rawValue) takes no text")
            }
            promptText = text
        case .acceptAlert:
            open.complete(.accepted(text: open.dialog.kind == .prompt ? (promptText ?? open.dialog.defaultText ?? "") : nil))
            dialog = nil
        default:
            open.complete(.cancelled)
            dialog = nil
        }
        return .null
    }
}

extension WebDriverCommand {
    /// Whether the standard runs "handle any user prompts" before this command.
    var handlesUserPrompts: Bool {
        switch self {
        case .getTimeouts, .setTimeouts, .windowHandle, .windowHandles, .switchToWindow, .closeWindow, .newWindow,
             .switchToParentFrame, .dismissAlert, .acceptAlert, .alertText, .sendAlertText, .newSession, .status,
             .deleteSession, .unsupported, .releaseActions:
            false
        default: true
        }
    }
}
