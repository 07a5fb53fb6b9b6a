import Foundation
import HybridBase
import HybridEngine

/// Content the container adds to pages: a style sheet, a script, or an HTML fragment placed
/// relative to an element (for example a like/share footer after an article), scoped by URL
/// pattern, at document start or end, in the main frame or all frames.
///
/// URL patterns are the engine's user-content patterns: `scheme://host/path` with `*`
/// wildcards (`https://*.example.com/news/*`); the port is not part of a pattern.
public struct PageInjection: Sendable, Hashable {
    /// Where an HTML fragment goes, relative to the element its selector finds
    /// (the positions of `insertAdjacentHTML`).
    public enum Position: String, Sendable, Hashable {
        /// Before the element, first inside it, last inside it, after it; the raw value is the position's
        /// name in `insertAdjacentHTML`.
        case beforeBegin = "beforebegin", afterBegin = "afterbegin", beforeEnd = "beforeend", afterEnd = "afterend"
    }

    /// What is injected.
    public enum Content: Sendable, Hashable {
        /// A user style sheet.
        case css(String)
        /// A script, in the page's world.
        case script(String)
        /// An HTML fragment placed at `position` of the first element matching `selector`.
        /// Inserted once per document, after the document has been parsed.
        case html(String, selector: String, position: Position)
    }

    /// The style sheet, script or HTML fragment to add.
    public var content: Content
    /// When a script runs (fragments are always placed at document end).
    public var injectionTime: UserScript.InjectionTime
    /// Whether it applies to the main frame only or to every frame.
    public var frames: UserScript.Frames
    /// Pages it applies to; empty = every page.
    public var urlPatterns: [String]
    /// Pages it never applies to.
    public var excludedPatterns: [String]

    /// An injection; by default it applies at document end, in the main frame, on every page.
    public init(_ content: Content, at injectionTime: UserScript.InjectionTime = .documentEnd,
                frames: UserScript.Frames = .mainFrameOnly, urlPatterns: [String] = [], excludedPatterns: [String] = []) {
        self.content = content
        self.injectionTime = injectionTime
        self.frames = frames
        self.urlPatterns = urlPatterns
        self.excludedPatterns = excludedPatterns
    }

    /// Adds this injection to an engine configuration (before the engine is created).
    public func apply(to configuration: inout EngineConfiguration) {
        switch content {
        case .css(let source):
            configuration.userStyleSheets.append(UserStyleSheet(
                source: source, frames: frames, allowList: urlPatterns, blockList: excludedPatterns))
        case .script(let source):
            configuration.userScripts.append(UserScript(
                source: source, injectionTime: injectionTime, frames: frames, world: .page,
                allowList: urlPatterns, blockList: excludedPatterns))
        case .html(let html, let selector, let position):
            configuration.userScripts.append(UserScript(
                source: Self.fragmentScript(html: html, selector: selector, position: position),
                injectionTime: .documentEnd, frames: frames, world: .page,
                allowList: urlPatterns, blockList: excludedPatterns))
        }
    }

    /// The script that places a fragment: JSON-quoted text, so the fragment can contain anything.
    static func fragmentScript(html: String, selector: String, position: Position) -> String {
        let quotedHTML = JSONValue.string(html).jsonText
        let quotedSelector = JSONValue.string(selector).jsonText
        return """
            (function () {
              var target = null;
              try { target = document.querySelector(\(quotedSelector)); } catch (e) { return; }
              if (!target) return;
              target.insertAdjacentHTML('\(position.rawValue)', \(quotedHTML));
            })();
            """
    }
}
