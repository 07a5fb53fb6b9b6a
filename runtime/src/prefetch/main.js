// HybridKit data prefetch: the page side.
//
// Injected at document start (main frame, page world) with the app's prefetch rules in
// `window.__hybridkitPrefetch` ([{key, url, withCookies}], `url` a template with {query.NAME}).
// A page `fetch` (GET) of the URL a rule makes for this page, with the credentials the rule
// used, is answered from the response the container started when the app opened the page —
// once; anything else, or a prefetch that is not there, goes on as the page asked
// (`hybrid.prefetched(key)` is the explicit way). A response the container pushed into the
// document is answered at once (`__hybridkitPrefetchEarly`). Install it after the request proxy's script,
// so a prefetched URL is answered before the proxy would fetch it.
(function () {
  'use strict';
  // @include ../shared/globals.js
  var rules = takeGlobal('__hybridkitPrefetch');
  if (!Array.isArray(rules) || !rules.length || window.__hybridkitPrefetchActive) return;
  Object.defineProperty(window, '__hybridkitPrefetchActive', { value: true });

  var here;
  try { here = new URL(location.href); } catch (e) { return; }

  // What the container pushed into this document (DataPrefetcher, as soon as the document and
  // the response both exist): `hybrid.prefetched` takes from here first, without a bridge round
  // trip or waiting for the bridge's handshake. Only for this document's own URL, once per key.
  // A stale kept response (a rule's `keep`) is pushed too, before the network's: read, not
  // taken, by `hybrid.prefetched(key, {stale: true})`. Ages are seconds when pushed, grown
  // by the time since.
  var early = Object.create(null), kept = Object.create(null);
  function stamp(withCookies, reply, age) {
    return { withCookies: !!withCookies, reply: reply, age: typeof age === 'number' && age >= 0 ? age : 0, at: Date.now() };
  }
  function matching(entry, withCookies) {
    return !!entry && (typeof withCookies !== 'boolean' || entry.withCookies === withCookies);
  }
  function aged(entry) { return { reply: entry.reply, age: entry.age + Math.max(0, Date.now() - entry.at) / 1000 }; }
  Object.defineProperty(window, '__hybridkitPrefetchEarly', { value: Object.freeze({
    deliver: function (page, key, withCookies, reply, age) {
      if (String(location.href).split('#')[0] !== page || typeof key !== 'string' || !reply || early[key]) return false;
      early[key] = stamp(withCookies, reply, age);
      return true;
    },
    deliverKept: function (page, key, withCookies, reply, age) {
      if (String(location.href).split('#')[0] !== page || typeof key !== 'string' || !reply || kept[key]) return false;
      kept[key] = stamp(withCookies, reply, age);
      return true;
    },
    has: function (key) { return !!early[key]; },
    take: function (key, withCookies) {
      var entry = early[key];
      if (!matching(entry, withCookies)) return null;
      delete early[key];
      return entry.reply;
    },
    // {reply, age} of the response pushed for `key`, taken once; null when none.
    takeAged: function (key, withCookies) {
      var entry = early[key];
      if (!matching(entry, withCookies)) return null;
      delete early[key];
      return aged(entry);
    },
    // {reply, age} of the stale kept response pushed for `key` (not taken); null when none.
    kept: function (key, withCookies) {
      var entry = kept[key];
      return matching(entry, withCookies) ? aged(entry) : null;
    }
  }) });
  // The same expansion as PrefetchRule.requestURL(for:): encodeURIComponent of each value.
  function expand(template) {
    var text = String(template).replace(/\{query\.([^}]*)\}/g, function (_, name) {
      var value = here.searchParams.get(name);
      return encodeURIComponent(value === null ? '' : value);
    });
    try {
      var url = new URL(text);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
    } catch (e) { return null; }
  }
  var candidates = rules.map(function (rule) {
    return { key: String(rule.key), url: expand(rule.url), withCookies: !!rule.withCookies, used: false };
  });

  var previous = window.fetch;
  window.fetch = function fetch(input, init) {
    var request;
    try { request = new Request(input, init); } catch (e) { return previous.apply(this, arguments); }
    var match = null;
    if (request.method === 'GET' && !request.signal.aborted && window.hybrid) {
      var sameOrigin = false;
      try { sameOrigin = new URL(request.url).origin === location.origin; } catch (e) { /* opaque */ }
      var sendsCookies = request.credentials === 'include' || (request.credentials === 'same-origin' && sameOrigin);
      for (var i = 0; i < candidates.length && !match; i++) {
        var candidate = candidates[i];
        if (!candidate.used && candidate.url === request.url && candidate.withCookies === sendsCookies) match = candidate;
      }
    }
    if (!match) return previous.apply(this, arguments);
    match.used = true;   // one answer per document: a second fetch of it goes to the network
    var self = this, args = arguments;
    var answered = window.hybrid.prefetched(match.key, { withCookies: match.withCookies }).then(function (response) {
      return response || previous.apply(self, args);
    }, function () { return previous.apply(self, args); });
    if (!request.signal) return answered;
    return new Promise(function (resolve, reject) {
      var abort = function () { reject(request.signal.reason !== undefined ? request.signal.reason : new DOMException('The operation was aborted.', 'AbortError')); };
      request.signal.addEventListener('abort', abort, { once: true });
      answered.then(resolve, reject);
    });
  };
})();
