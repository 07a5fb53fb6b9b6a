#if canImport(WebKit)
import Foundation
import HybridCore
import WebKit

/// User scripts, style sheets and message handlers of an ``EngineConfiguration``, installed in a
/// `WKUserContentController`.
///
/// WKUserScript has no URL allow/block lists (WebKitGTK has), so a script with lists is wrapped
/// in a check of `location.href` against the same patterns; and WKWebView has no user style
/// sheets on iOS, so a sheet is a document-start script that adds a `<style>` element.
@MainActor
enum WKUserContent {
    static func install(_ configuration: EngineConfiguration, into controller: WKUserContentController, messages: WKMessageProxy) {
        for script in configuration.userScripts {
            let source = guarded(script.source, allow: script.allowList, block: script.blockList)
            controller.addUserScript(WKUserScript(
                source: source, injectionTime: script.injectionTime == .documentStart ? .atDocumentStart : .atDocumentEnd,
                forMainFrameOnly: script.frames == .mainFrameOnly, in: script.world.contentWorld))
        }
        for sheet in configuration.userStyleSheets {
            let source = guarded(styleScript(sheet.source), allow: sheet.allowList, block: sheet.blockList)
            // The client world: the page never sees the helper, and the DOM is shared anyway.
            controller.addUserScript(WKUserScript(
                source: source, injectionTime: .atDocumentStart, forMainFrameOnly: sheet.frames == .mainFrameOnly,
                in: WKContentWorld.defaultClient))
        }
        for handler in configuration.messageHandlers {
            let world = handler.world.contentWorld
            switch handler.kind {
            case .reply: controller.addScriptMessageHandler(messages, contentWorld: world, name: handler.name)
            case .noReply: controller.add(messages, contentWorld: world, name: handler.name)
            }
        }
    }

    /// `source` run only where `location.href` matches an allowed pattern and no blocked one.
    /// A block (not a function) keeps the script's top-level `var` and function declarations
    /// global, as they are unwrapped.
    nonisolated static func guarded(_ source: String, allow: [String], block: [String]) -> String {
        guard !allow.isEmpty || !block.isEmpty else { return source }
        let allowed = allow.map { regex(for: $0).jsStringLiteral }.joined(separator: ",")
        let blocked = block.map { regex(for: $0).jsStringLiteral }.joined(separator: ",")
        return """
        if ((function (href) {
          const test = (p) => new RegExp(p).test(href);
          const allow = [\(allowed)], block = [\(blocked)];
          return (allow.length === 0 || allow.some(test)) && !block.some(test);
        })(String(location.href))) {
        \(source)
        }
        """
    }

    /// A WebKit URL pattern (`scheme://host/path`, `*` anywhere; `*.` before a host also matches
    /// the host itself) as an anchored regular expression.
    nonisolated static func regex(for pattern: String) -> String {
        var result = "^"
        var rest = Substring(pattern)
        if let range = rest.range(of: "://*.") {
            result += escape(rest[rest.startIndex..<range.lowerBound]) + "://([^/]*\\.)?"
            rest = rest[range.upperBound...]
        }
        result += escape(rest)
        return result + "$"
    }

    nonisolated private static func escape(_ text: Substring) -> String {
        var escaped = ""
        for character in text {
            if character == "*" {
                escaped += ".*"
            } else if "\\^$.|?+()[]{}/".contains(character) {
                escaped += "\\\(character)"
            } else {
                escaped.append(character)
            }
        }
        return escaped
    }

    /// A script that adds `css` as a `<style>` element as soon as the document has a root.
    nonisolated static func styleScript(_ css: String) -> String {
        """
        (function (css) {
          const add = () => {
            const style = document.createElement('style');
            style.textContent = css;
            (document.head || document.documentElement).appendChild(style);
          };
          if (document.documentElement) add(); else document.addEventListener('DOMContentLoaded', add, { once: true });
        })(\(css.jsStringLiteral));
        """
    }
}
#endif
