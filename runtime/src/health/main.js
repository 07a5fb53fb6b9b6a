// HybridKit health capture: the page side, and the one script-error capture of the container
// (health recording and boot health's trial both take their errors from it).
//
// Injected at document start into every frame, in the container's own script world (the
// bridge's, `hybridkit`), with the message handler `hybridkitHealth` in that world: the page's
// scripts share none of its globals, so overriding `PerformanceObserver`, `performance`, `console`,
// `window.onerror` or calling `preventDefault()` on `unhandledrejection` hides nothing.
// `window.__hybridkitHealthErrorsOnly = true` before it (a package view without recording) leaves
// the timing out.
//
// Cheap at document start on purpose (it runs before every page a pooled view opens): two error
// listeners, one load and one pagehide listener (the error listeners alone in a frame or a view's
// placeholder document); the paint entries are read once the load has ended, with an observer only
// when the first contentful paint has not happened by then; the report waits until after the
// page's first moments.
//
// Posts JSON strings:
//   {kind: 'timing', page, responseStart, domContentLoaded, load, firstPaint, firstContentfulPaint, timeOrigin}
//     once per top-level document, in milliseconds from navigation start, a quarter of a second
//     after the load has ended and the first contentful paint is known (or 10 s after the load
//     without one, or at once when the page goes away);
//   {kind: 'error', type: 'error'|'rejection', message, source, line, column, stack, origin}
//     per distinct uncaught error or unhandled rejection (WebKit dispatches the page's `error`
//     and `unhandledrejection` events to every world; Blink does not, and its driver reports
//     them from DevTools instead);
//   {kind: 'dropped', count}
//     errors this document folded away (repeats, or beyond its limit), at most every second.
(function (recordsTiming) {
  'use strict';
  if (window.__hybridkitHealthActive) return;
  window.__hybridkitHealthActive = true;
  var isTop = window === window.top;
  var handlers = window.webkit && window.webkit.messageHandlers;
  var handler = handlers && handlers.hybridkitHealth;
  if (!handler) return;
  function post(message) {
    try { handler.postMessage(JSON.stringify(message)); } catch (e) { /* the view is gone */ }
  }
  var origin = '';
  try { origin = String(location.origin); } catch (e) { /* opaque */ }

  // @include errors.js

  // @include timing.js
  window.addEventListener('pagehide', function () {
    flushDropped();
    if (recordsTiming && loaded) sendTiming();
  }, true);
})(!window.__hybridkitHealthErrorsOnly);
