#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// The JavaScript that gives a Chromium page what WebKit's user content manager gives a
/// WebKit view: user scripts limited to frames and URL patterns, document-end timing, user
/// style sheets, and `window.webkit.messageHandlers.NAME.postMessage` over `Runtime.addBinding`,
/// so page code and `hybrid.js` run unchanged.
///
/// Limits (see docs/engines.md): a wrapped script's top-level `let`/`const`/`class` are scoped
/// to its block (`var` and functions stay global); user styles are `<style>` elements the page
/// can see, with author (not user) precedence.
enum BlinkUserContent {
    /// The world style sheets are injected from (kept away from the page's globals).
    static let styleWorld = "hybridkit-user-styles"

    /// The world the title watcher runs in, and the binding it reports on.
    static let titleWorld = "hybridkit-title"
    static let titleBinding = "__hybridkitTitleChanged"

    /// Reports the main frame's `document.title` whenever it changes. Chromium announces no
    /// title change over DevTools (`Target.targetInfoChanged` comes only with navigations, and
    /// the history entry's title is read at load end), so a title a script sets later, or
    /// clears, would otherwise never reach the view.
    static let titleWatcher = """
        if (window === window.top) (() => {
          let last = document.title;
          const check = () => {
            const title = document.title;
            if (title === last) return;
            last = title;
            globalThis[\(titleBinding.jsStringLiteral)](title);
          };
          new MutationObserver(check).observe(document, { childList: true, subtree: true, characterData: true });
        })();
        """

    /// The binding a handler's messages arrive on (unique per world and name).
    static func bindingName(_ handler: ScriptMessageHandler) -> String {
        "__hybridkitPost_" + identifier(handler.world.name ?? "page") + "_" + identifier(handler.name)
    }

    /// The function in the handler's world that settles a reply promise.
    static func replyFunction(_ handler: ScriptMessageHandler) -> String {
        "__hybridkitReply_" + identifier(handler.name)
    }

    /// Installs `window.webkit.messageHandlers[NAME]` in the handler's world.
    static func handlerShim(_ handler: ScriptMessageHandler) -> String {
        let replies = if case .reply = handler.kind { "true" } else { "false" }
        return """
            (() => {
              const g = globalThis;
              const webkit = g.webkit || (g.webkit = {});
              const handlers = webkit.messageHandlers || (webkit.messageHandlers = {});
              const binding = \(bindingName(handler).jsStringLiteral);
              const pending = new Map();
              let next = 0;
              const encode = (body) => typeof body === 'string' ? 's' + body : 'j' + (JSON.stringify(body === undefined ? null : body) ?? 'null');
              handlers[\(handler.name.jsStringLiteral)] = Object.freeze({ postMessage(body) {
                const send = g[binding];
                if (typeof send !== 'function') throw new Error('message handler is not available');
                if (!\(replies)) { send('0:' + encode(body)); return undefined; }
                const id = ++next;
                const text = id + ':' + encode(body);
                return new Promise((resolve, reject) => { pending.set(id, [resolve, reject]); send(text); });
              } });
              Object.defineProperty(g, \(replyFunction(handler).jsStringLiteral), { configurable: true, value: (id, ok, value, json) => {
                const entry = pending.get(id);
                if (!entry) return;
                pending.delete(id);
                if (!ok) entry[1](new Error(value));
                else { try { entry[0](json ? JSON.parse(value) : value); } catch (e) { entry[1](e); } }
              } });
            })();
            """
    }

    /// `Runtime.callFunctionOn` parameters that answer message `id` in the handler's world
    /// (context `context`): the value travels as one protocol string, escaped once, and JSON
    /// replies are parsed by V8 in the page.
    static func replyCall(_ handler: ScriptMessageHandler, id: Double, reply: ScriptReply, context: Int) -> [String: JSONValue] {
        let (ok, value, json): (Bool, String, Bool) = switch reply {
        case .json(let text): (true, text, true)
        case .string(let text): (true, text, false)
        case .error(let message): (false, message, false)
        }
        return [
            "functionDeclaration": .string("function (id, ok, value, json) { globalThis[\(replyFunction(handler).jsStringLiteral)](id, ok, value, json); }"),
            "executionContextId": .number(Double(context)),
            "arguments": [["value": .number(id)], ["value": .bool(ok)], ["value": .string(value)], ["value": .bool(json)]],
            "silent": true,
        ]
    }

    /// A user script with its frame, URL and timing rules applied in the page.
    static func source(_ script: UserScript) -> String {
        var body = script.source
        if script.injectionTime == .documentEnd {
            body = """
                const __hybridkitRun = () => {
                \(script.source)
                };
                if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', __hybridkitRun, { once: true }); else __hybridkitRun();
                """
        }
        let condition = conditions(frames: script.frames, allowList: script.allowList, blockList: script.blockList)
        if condition == nil && script.injectionTime == .documentStart { return script.source }
        return "if (\(condition ?? "true")) {\n\(body)\n}\n"
    }

    /// A style sheet as a document-start script that adds a `<style>` as soon as `<html>` exists.
    static func source(_ sheet: UserStyleSheet) -> String {
        let condition = conditions(frames: sheet.frames, allowList: sheet.allowList, blockList: sheet.blockList) ?? "true"
        return """
            if (\(condition)) {
              const add = () => {
                const style = document.createElement('style');
                style.textContent = \(sheet.source.jsStringLiteral);
                (document.head || document.documentElement).appendChild(style);
              };
              if (document.documentElement) add();
              else {
                const observer = new MutationObserver(() => { if (document.documentElement) { observer.disconnect(); add(); } });
                observer.observe(document, { childList: true });
              }
            }
            """
    }

    /// The JavaScript condition for frames and URL lists, or `nil` when there is none.
    private static func conditions(frames: UserScript.Frames, allowList: [String], blockList: [String]) -> String? {
        var parts: [String] = []
        if frames == .mainFrameOnly { parts.append("window === window.top") }
        if !allowList.isEmpty { parts.append("\(regexes(allowList)).some((r) => new RegExp(r).test(\(portlessURL)))") }
        if !blockList.isEmpty { parts.append("!\(regexes(blockList)).some((r) => new RegExp(r).test(\(portlessURL)))") }
        return parts.isEmpty ? nil : parts.joined(separator: " && ")
    }

    /// The document URL as WebKit matches user-content patterns against it: a pattern's host
    /// never names a port, and `http://127.0.0.1/*` matches `http://127.0.0.1:8080/a`.
    private static let portlessURL = "(location.protocol + '//' + location.hostname + location.pathname + location.search + location.hash)"

    /// WebKit-style URL patterns (`*` matches anything) as anchored regular expression sources.
    private static func regexes(_ patterns: [String]) -> String {
        let sources = patterns.map { pattern -> JSONValue in
            .string("^" + NSRegularExpression.escapedPattern(for: pattern).replacingOccurrences(of: "\\*", with: ".*") + "$")
        }
        return JSONValue.array(sources).jsonText
    }

    private static func identifier(_ text: String) -> String {
        String(text.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "_" })
    }
}
#endif
