// HybridKit request proxy: the page side.
//
// Injected at document start (main frame, page world) before the runtime, with its policy in
// `window.__hybridkitProxy`. Requests whose URL the policy names leave the engine and go over
// the bridge (`hybrid.call('proxy', 'request', …)`) to native URLSession with the app's cookie
// jar; every other request is untouched. Hooks: XMLHttpRequest (async only: a synchronous
// open throws NotSupportedError at once rather than hang), fetch (every body kind: the engine's
// own Request checks each call and gives its Content-Type; bytes, text, URLSearchParams and Blobs
// are read in the page as the engine reads them, other bodies through that Request), and form
// POST submissions (the response is
// loaded natively as the new document). Small bodies cross as base64 inside the request
// call; Blob/File/FormData and large ones as bytes, a slice at a time as the native transfer
// pulls them (through the bridge's byte channel where the engine has one).
//
// What the page sees follows the Fetch and XMLHttpRequest standards as the engine implements
// them: the response head arrives first (a progress report of the bridge call) and the body in
// chunks, so `fetch` resolves at the headers with a live `response.body` and XHR goes through
// LOADING; `type`/`url`/`redirected` are the network response's; an abort errors the body; XHR
// events fire in the standard's order, upload events only when listeners were registered at
// send(). The CORS check of cross-origin requests is made natively (ProxyCORS).
(function () {
  'use strict';
  // @include ../shared/globals.js
  var config = takeGlobal('__hybridkitProxy');
  if (!config || window.__hybridkitProxyActive) return;

  // @include patterns.js

  var pages = (config.pages || []).map(compile);
  var requests = (config.requests || []).map(compile);
  try {
    var here = new URL(location.href);
    if (pages.length && !pages.some(function (m) { return m(here); })) return;
  } catch (e) { return; }
  Object.defineProperty(window, '__hybridkitProxyActive', { value: true });

  // Which named requests leave the engine (ProxyPolicy.Routing): every one, or only those the
  // engine cannot carry without losing something. A page at a custom scheme has an origin no
  // server expects; cookies only the app's jar holds, a header rule's token and a trusted host's
  // missing CORS headers are what the engine cannot give. Everything else keeps the engine's own
  // CSP, cache, service worker, Resource Timing, keepalive and synchronous XHR.
  var always = config.routing !== 'whenNeeded';
  var customOrigin = here.protocol !== 'http:' && here.protocol !== 'https:';
  var headerRules = (config.headerRules || []).map(compile);
  var trusted = (config.trusted || []).map(compile);
  // A page its service worker controls keeps the engine's path: the worker sees the page's requests
  // first, as it does without the container (a worker's own fetches never pass through the page
  // script). Said once in the console, so the proxy is never bypassed silently.
  var toldWorker = false;
  function controlledByWorker() {
    var controlled = !!(navigator.serviceWorker && navigator.serviceWorker.controller);
    if (controlled && !toldWorker) {
      toldWorker = true;
      console.warn('HybridKit: a service worker controls this page; its requests go to the worker, not the request proxy');
    }
    return controlled;
  }
  function needsProxy(url) {
    if (controlledByWorker()) return false;
    return always || customOrigin || config.cookies === true || headerRules.some(function (m) { return m(url); })
      || (url.origin !== here.origin && trusted.some(function (m) { return m(url); }));
  }

  function proxiedURL(url) {
    try {
      var parsed = new URL(url, document.baseURI);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
      return requests.some(function (m) { return m(parsed); }) && needsProxy(parsed) ? parsed : null;
    } catch (e) { return null; }
  }

  // @include quirks.js

  // @include bytes.js

  // @include bodies.js

  // @include mime.js

  // @include csp.js

  // @include bridge.js

  // @include fetch.js

  // @include xhr.js

  // @include forms.js
})();
