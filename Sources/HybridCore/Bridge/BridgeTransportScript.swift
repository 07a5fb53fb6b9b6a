import Foundation

/// The scripts the bridge injects: the transport (beside the native message handler) and the
/// page runtime `hybrid.js` (in the page's world).
///
/// The transport is the only code that touches `window.webkit.messageHandlers.NAME`. With
/// script worlds it lives in an isolated world, top frame only, so neither the page's scripts
/// nor any iframe can reach the handler; it relays the page runtime's DOM CustomEvents (JSON
/// string `detail`) to native and native's answers back. Without worlds it runs in the page's
/// world and relies on a per-document nonce the container delivers to the top frame only.
public enum BridgeTransportScript {
    /// The transport's source.
    /// - Parameters:
    ///   - handlerName: The message handler's name (`hybrid`).
    ///   - replies: The handler answers `postMessage` with a Promise; otherwise answers come back
    ///     through `__hybridkitTransport.deliver` evaluated by the container.
    ///   - issuedNonce: The container issues the nonce (`setNonce`); otherwise the transport
    ///     makes one and announces it with a hello.
    public static func source(handlerName: String, replies: Bool, issuedNonce: Bool) -> String {
        """
        (function () {
          'use strict';
          var HANDLER = \(handlerName.jsStringLiteral), REPLIES = \(replies), ISSUED = \(issuedNonce);
          if (window.top !== window || window.__hybridkitTransport) return;
          var handlers = window.webkit && window.webkit.messageHandlers;
          var handler = handlers && handlers[HANDLER];
          if (!handler) return;
          var nonce = null, readyText = null;
          function toPage(text) {
            document.dispatchEvent(new CustomEvent('hybridkit:recv', { detail: text }));
          }
          function fromNative(text) {
            if (typeof text !== 'string' || text.length === 0) return;
            // Only the hello acknowledgement is read here; everything else goes to the page as is.
            if (text.lastIndexOf('{"t":"hello"', 0) === 0) {
              var ack;
              try { ack = JSON.parse(text); } catch (e) { return; }
              if (!ack.ok) return;
              readyText = JSON.stringify({ t: 'ready', nonce: nonce, info: ack.value });
              toPage(readyText);
              return;
            }
            toPage(text);
          }
          function post(text) {
            if (!REPLIES) { handler.postMessage(text); return; }
            handler.postMessage(text).then(fromNative, function (error) {
              var id = null;
              var match = /^\\{"v":1,"id":(\\d+)/.exec(text.slice(0, 40));
              if (match) id = Number(match[1]);
              if (id !== null) toPage(JSON.stringify({ t: 'reply', id: id, ok: false,
                error: { code: 'internal', message: String(error && error.message || error) } }));
            });
          }
          document.addEventListener('hybridkit:send', function (event) {
            // Read `detail` once: across script worlds every read may copy it.
            var detail = event.detail;
            if (nonce !== null && typeof detail === 'string') post(detail);
          });
          document.addEventListener('hybridkit:hello', function () {
            if (readyText !== null) toPage(readyText);
          });
          Object.defineProperty(window, '__hybridkitTransport', { value: Object.freeze({
            deliver: function (forNonce, texts) {
              if (forNonce !== nonce) return;
              for (var i = 0; i < texts.length; i++) fromNative(texts[i]);
            },
            setNonce: function (issued, info) {
              if (!ISSUED || nonce !== null) return;
              nonce = issued;
              readyText = JSON.stringify({ t: 'ready', nonce: nonce, info: info });
              toPage(readyText);
            }
          }) });
          // A document going into the page cache is a new bridge document when it comes back:
          // the container issues it a new nonce, or it announces itself again (below).
          window.addEventListener('pagehide', function (event) {
            if (!event.persisted) return;
            readyText = null;
            if (ISSUED) nonce = null;
          });
          if (ISSUED) {
            if (typeof window.__hybridkitIssued === 'object' && window.__hybridkitIssued) {
              var early = window.__hybridkitIssued;
              delete window.__hybridkitIssued;
              window.__hybridkitTransport.setNonce(early.nonce, early.info);
            }
            return;
          }
          var bytes = new Uint8Array(24);
          crypto.getRandomValues(bytes);
          nonce = Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join('');
          post(JSON.stringify({ t: 'hello', v: 1, nonce: nonce }));
          // A document restored from the page cache is committed again without running this script:
          // announce it again, or the container would take its calls for a stale document's.
          window.addEventListener('pageshow', function (event) {
            if (event.persisted) post(JSON.stringify({ t: 'hello', v: 1, nonce: nonce }));
          });
        })();
        """
    }

    /// The script the container evaluates (in the transport's world, main frame) to hand an
    /// issued nonce to a new document, whether or not its transport has started yet.
    public static func issueNonce(_ nonce: String, info: JSONValue) -> String {
        let n = nonce.jsStringLiteral, i = info.jsonText
        return "window.__hybridkitTransport ? window.__hybridkitTransport.setNonce(\(n), \(i)) : "
            + "(window.__hybridkitIssued = { nonce: \(n), info: \(i) }); void 0;"
    }

    /// The script that delivers answers, progress and events to the transport of the document
    /// with `nonce` (a document that has since gone ignores it).
    public static func deliver(_ texts: [String], nonce: String?) -> String {
        let list = texts.map(BridgeJSON.quote).joined(separator: ",")
        return "window.__hybridkitTransport && window.__hybridkitTransport.deliver(\(BridgeJSON.quote(nonce ?? "")), [\(list)]); void 0;"
    }

    /// The page runtime `hybrid.js`, shipped as a package resource.
    public static let runtimeSource: String = {
        guard let url = Bundle.module.url(forResource: "hybrid", withExtension: "js"),
              let source = try? String(contentsOf: url, encoding: .utf8)
        else { return "console.error('HybridKit: hybrid.js is missing from the bundle');" }
        return source
    }()

    /// `hybrid.js` preceded by its boot settings (`transport`, `urlScheme`).
    public static func runtime(transport: String, urlScheme: String) -> String {
        let boot: JSONValue = ["transport": .string(transport), "urlScheme": .string(urlScheme)]
        return "window.__hybridkitBoot = \(boot.jsonText);\n" + runtimeSource
    }
}
