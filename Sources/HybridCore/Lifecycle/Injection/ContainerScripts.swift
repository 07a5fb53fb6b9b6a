import Foundation

/// The small scripts the container evaluates in pages: probes, media, snapshots, the error page.
/// Kept in one place so each engine runs the very same text.
enum ContainerScripts {
    /// The liveness probe: answers at once if the page's main thread is free.
    static let liveness = "1"

    /// The DOM half of the blank-page probe: how much the document shows. A page that lost its
    /// content (a crashed renderer left a white document, a script wiped the body) has no
    /// elements with a box and no text.
    static let contentProbe = """
        (function () {
          var body = document.body;
          if (!body) return { elements: 0, text: 0, title: document.title || '' };
          var text = (body.innerText || '').trim().length;
          var elements = 0, all = body.querySelectorAll('*');
          for (var i = 0; i < all.length && elements < 50; i++) {
            var r = all[i].getBoundingClientRect();
            if (r.width > 0 && r.height > 0) elements++;
          }
          return { elements: elements, text: text, title: document.title || '' };
        })()
        """

    /// Pauses every audio and video element (main frame and same-origin frames) and returns how
    /// many were playing. `autoplay` is removed so nothing starts again on its own. The body of an
    /// async function (`callAsync`): it answers once the page has heard each of those elements
    /// pause (their `pause` events are queued tasks, which a view closed right after a plain
    /// evaluation never ran), at most 250 ms later.
    static let pauseMedia = """
        let playing = 0;
        const heard = [];
        function pause(doc) {
          const media = doc.querySelectorAll('audio, video');
          for (let i = 0; i < media.length; i++) {
            const m = media[i];
            if (!m.paused) {
              playing++;
              heard.push(new Promise((resolve) => m.addEventListener('pause', resolve, { once: true })));
            }
            m.removeAttribute('autoplay');
            try { m.pause(); } catch (e) {}
          }
          const frames = doc.querySelectorAll('iframe');
          for (let j = 0; j < frames.length; j++) {
            try { if (frames[j].contentDocument) pause(frames[j].contentDocument); } catch (e) {}
          }
        }
        pause(document);
        if (heard.length) await Promise.race([Promise.all(heard), new Promise((resolve) => setTimeout(resolve, 250))]);
        return playing;
        """

    /// Asks the page's registered capture function (`hybrid.onSnapshot`) for a PNG data URL.
    static let pageSnapshot = """
        const capture = window.__hybridkitSnapshot;
        if (typeof capture !== 'function') return null;
        const url = await capture();
        return typeof url === 'string' ? url : null;
        """

    /// Undoes a text-size change a page or the user made (WebKit keeps it across back navigation).
    static let resetTextSize = """
        (function () {
          var s = document.documentElement && document.documentElement.style;
          if (!s) return false;
          s.setProperty('-webkit-text-size-adjust', '100%');
          s.setProperty('text-size-adjust', '100%');
          s.removeProperty('zoom');
          return true;
        })()
        """

    /// The page shown when automatic recovery gave up: the reason and a retry button that
    /// navigates to ``retryURL`` (which the container intercepts).
    static func errorPage(reason: WhiteScreenReason, failedURL: URL?) -> String {
        let url = escape(failedURL?.absoluteString ?? "")
        return """
            <!doctype html><html><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width,initial-scale=1">
            <title>Page unavailable</title>
            <style>body{font:16px system-ui,sans-serif;margin:0;display:flex;align-items:center;justify-content:center;
            min-height:100vh;color:#333;background:#fafafa}main{text-align:center;padding:24px}
            button{font:inherit;padding:10px 28px;border-radius:8px;border:1px solid #999;background:#fff}</style>
            </head><body><main id="hybridkit-error" data-reason="\(escape(reason.code))" data-url="\(url)">
            <p>This page stopped working.</p>
            <p><button id="hybridkit-retry" onclick="location.href='\(retryURL.absoluteString)'">Try again</button></p>
            </main></body></html>
            """
    }

    /// The navigation the error page's button makes; never loaded, always intercepted.
    static let retryURL = URL(string: "hybridkit-container://retry")!

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }
}
