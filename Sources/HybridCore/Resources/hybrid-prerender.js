// GENERATED FILE, do not edit: scripts/build-runtime.mjs assembled it from these modules of
//   prerender/main.js, shared/globals.js.
// Edit them and run `make runtime` (docs/page-runtime.md).
// HybridKit prerender semantics (page world, document start, main frame, its settings in
// `window.__hybridkitPrerenderSettings` = {url}), for the document a
// WebViewPool prerenders hidden: what the Prerendering Revamped standard gives a page where the
// engine lacks it. Until the container shows the view: document.prerendering is true,
// visibilityState is 'hidden' (document.hidden true); at activation: 'prerenderingchange' and
// 'visibilitychange' fire, and PerformanceNavigationTiming.activationStart is the activation's
// time on the page's clock (0 in any other document). Only the prerendered URL's first
// document is affected: after activation a reload or a later visit of the same URL in this tab
// sees a normal page (kept in sessionStorage under the key below).
(function () {
  'use strict';
  // Provides: takeGlobal(name) -> the value of window[name], deleted from the window (the
  // container's settings for a script, set just before it: no page script ever sees them).
  function takeGlobal(name) {
    var value = window[name];
    try { delete window[name]; } catch (e) { /* non-configurable: ignore */ }
    return value;
  }
  var config = takeGlobal('__hybridkitPrerenderSettings');
  if (!config || typeof config.url !== 'string') return;
  var here = String(location.href).split('#')[0];
  if (here !== config.url) return;
  var stored = '__hybridkitPrerendered';
  try { if (sessionStorage.getItem(stored) === config.url) return; } catch (e) { /* storage off: still prerendering */ }
  var prerendering = true;
  var activationStart = 0;
  var proto = Document.prototype;
  var nativeGetter = function (name) {
    var descriptor = Object.getOwnPropertyDescriptor(proto, name);
    return descriptor && descriptor.get;
  };
  var visibilityState = nativeGetter('visibilityState');
  var hidden = nativeGetter('hidden');
  var define = function (target, name, get) {
    try { Object.defineProperty(target, name, { configurable: true, enumerable: true, get: get }); } catch (e) { /* kept native */ }
  };
  define(document, 'prerendering', function () { return prerendering; });
  define(document, 'visibilityState', function () {
    return prerendering ? 'hidden' : (visibilityState ? visibilityState.call(document) : 'visible');
  });
  define(document, 'hidden', function () { return prerendering ? true : (hidden ? hidden.call(document) : false); });
  if (window.PerformanceNavigationTiming) {
    define(window.PerformanceNavigationTiming.prototype, 'activationStart', function () { return activationStart; });
  }
  Object.defineProperty(window, '__hybridkitPrerender', {
    configurable: false, enumerable: false, writable: false,
    value: Object.freeze({
      // Called by the container when it shows the view; once.
      activate: function () {
        if (!prerendering) return false;
        activationStart = performance.now();
        prerendering = false;
        try { sessionStorage.setItem(stored, config.url); } catch (e) { /* storage off */ }
        document.dispatchEvent(new Event('prerenderingchange'));
        document.dispatchEvent(new Event('visibilitychange'));
        return true;
      },
    }),
  });
})();
