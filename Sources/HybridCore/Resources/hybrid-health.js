// GENERATED FILE, do not edit: scripts/build-runtime.mjs assembled it from these modules of
//   health/main.js, health/errors.js, health/timing.js.
// Edit them and run `make runtime` (docs/page-runtime.md).
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

  // Script errors: de-duplicated and capped here, so a page in an error loop costs one
  // message per second, not one per error.
  var maxErrors = 25, seen = Object.create(null), distinct = 0, folded = 0, flushTimer = 0;
  function text(value, limit) {
    var s = '';
    try { s = String(value); } catch (e) { s = '[unprintable]'; }
    return s.length > limit ? s.slice(0, limit) : s;
  }
  function flushDropped() {
    flushTimer = 0;
    if (folded > 0) { post({ kind: 'dropped', count: folded }); folded = 0; }
  }
  function fold() {
    folded++;
    if (!flushTimer) flushTimer = setTimeout(flushDropped, 1000);
  }
  function report(type, message, source, line, column, stack) {
    var key = type + '\u0000' + message + '\u0000' + source + '\u0000' + line + '\u0000' + column;
    if (seen[key] || distinct >= maxErrors) return fold();
    seen[key] = true;
    distinct++;
    post({ kind: 'error', type: type, message: message, source: source, line: line, column: column,
           stack: stack, origin: origin });
  }
  window.addEventListener('error', function (event) {
    if (!(event instanceof ErrorEvent)) return;   // a resource failed to load, not a script error
    if (!event.isTrusted) return;                   // dispatched by a script, not thrown
    var error = event.error, stack = '';
    try { if (error && error.stack) stack = text(error.stack, 4000); } catch (e) { /* foreign object */ }
    report('error', text(event.message || '', 1000), text(event.filename || location.href, 2000),
           Number(event.lineno) || 0, Number(event.colno) || 0, stack);
  }, true);
  window.addEventListener('unhandledrejection', function (event) {
    var reason = event.reason, message = '', stack = '';
    try {
      if (reason && typeof reason === 'object' && 'message' in reason) {
        message = text((reason.name ? reason.name + ': ' : '') + reason.message, 1000);
        if (reason.stack) stack = text(reason.stack, 4000);
      } else {
        message = text(reason, 1000);
      }
    } catch (e) { message = '[unreadable rejection]'; }
    report('rejection', message, text(location.href, 2000), 0, 0, stack);
  }, true);
  // Errors folded and not posted yet (this world's own global: tests wait for it to reach 0).
  window.__hybridkitHealthUnsent = function () { return folded; };

  // Page timing, top-level documents only, never for a view's placeholder (about:blank, data:).
  recordsTiming = recordsTiming && isTop && location.protocol !== 'about:' && location.protocol !== 'data:';
  var firstPaint = null, firstContentfulPaint = null, loaded = false, sent = false;
  // A time in ms from navigation start; 0 means "not reached" for the load events, but is a
  // measured time for the response's start (sent after the load, it has always been reached;
  // WebKit's coarsened clock gives 0 for a loopback response within the first millisecond).
  function round(value, zeroIsTime) {
    return typeof value === 'number' && (value > 0 || (zeroIsTime && value === 0)) ? Math.round(value * 1000) / 1000 : null;
  }
  function sendTiming() {
    if (sent) return;
    sent = true;
    var navigation = null;
    try { navigation = performance.getEntriesByType('navigation')[0] || null; } catch (e) { /* none */ }
    post({
      kind: 'timing',
      page: String(location.href),
      timeOrigin: round(performance.timeOrigin),
      responseStart: navigation ? round(navigation.responseStart, true) : null,
      domContentLoaded: navigation ? round(navigation.domContentLoadedEventEnd) : null,
      load: navigation ? round(navigation.loadEventEnd) : null,
      firstPaint: firstPaint,
      firstContentfulPaint: firstContentfulPaint,
    });
  }
  // The paint entries (this world's own `performance`: the page's overrides do not reach it).
  function readPaint(entries) {
    for (var i = 0; i < entries.length; i++) {
      if (entries[i].name === 'first-paint' && firstPaint === null) firstPaint = round(entries[i].startTime);
      if (entries[i].name === 'first-contentful-paint' && firstContentfulPaint === null) {
        firstContentfulPaint = round(entries[i].startTime);
      }
    }
  }
  // The report is not urgent: it leaves a moment after the page has loaded and painted, so its
  // message (and the app's decoding of it) never competes with the page's first frames or with
  // the app learning that the load finished. A page that goes away before sends it at once.
  var reportDelay = 250;
  function painted() {
    if (!sent) setTimeout(sendTiming, reportDelay);
  }
  function loadEnded() {
    // loadEventEnd is set once the load handlers have run.
    loaded = true;
    try { readPaint(performance.getEntriesByType('paint')); } catch (e) { /* no paint timing */ }
    if (firstContentfulPaint !== null) return painted();
    // Not painted yet: wait for the entry (buffered: one that lands meanwhile is not missed).
    try {
      var observer = new PerformanceObserver(function (list) {
        readPaint(list.getEntries());
        if (firstContentfulPaint !== null) { observer.disconnect(); painted(); }
      });
      observer.observe({ type: 'paint', buffered: true });
    } catch (e) { /* no paint timing: the load alone is sent */ }
    setTimeout(sendTiming, 10000);
  }
  if (recordsTiming) {
    window.addEventListener('load', function () { setTimeout(loadEnded, 0); });
  }
  window.addEventListener('pagehide', function () {
    flushDropped();
    if (recordsTiming && loaded) sendTiming();
  }, true);
})(!window.__hybridkitHealthErrorsOnly);
