// ---- legacy URL transport --------------------------------------------------------------
// Older containers had no message handlers: pages queued messages and navigated a hidden
// iframe to a private URL; the container cancelled that navigation, fetched the queue with
// a script, and answered by evaluating script. Kept for such containers and for comparison.
var urlQueue = (function () {
  var queue = [];
  var frame = null;
  var scheduled = false;
  function signal() {
    if (!frame) {
      var parent = document.body || document.documentElement;
      if (!parent) {
        // At document start some engines (Blink) have no <html> yet: signal once it exists.
        new MutationObserver(function (_, observer) {
          if (document.documentElement) { observer.disconnect(); signal(); }
        }).observe(document, { childList: true });
        return;
      }
      frame = document.createElement('iframe');
      frame.style.display = 'none';
      parent.appendChild(frame);
    }
    scheduled = false;
    frame.src = scheme + '://__queue__/' + Date.now();
  }
  return {
    push: function (text) {
      queue.push(text);
      if (!scheduled) { scheduled = true; Promise.resolve().then(signal); }
    },
    drain: function () { var out = queue; queue = []; return out; },
    deliver: function (texts) { for (var i = 0; i < texts.length; i++) receive(texts[i]); }
  };
})();
Object.defineProperty(window, '__hybridkitURL', {
  value: Object.freeze({ drain: urlQueue.drain, deliver: urlQueue.deliver })
});
