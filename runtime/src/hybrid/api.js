// ---- the API ---------------------------------------------------------------------------
// hybrid.prefetched(key, {stale: true}): what is there now — a kept response (stale or fresh),
// or the network's when it arrived first — as {data, age, stale}, and in `fresh` what the
// network brings ({data, age}; null when no request was needed; rejected when it failed).
function prefetchedCopies(params, early) {
  var copy = function (reply, age) { return { data: prefetchedResponse(reply), age: age }; };
  var pushed = function () {
    var got = early && early.takeAged(params.key, params.withCookies);
    return got ? copy(got.reply, got.age) : null;
  };
  var fresh = function () {
    var now = pushed();
    if (now) return Promise.resolve(now);
    return call('prefetch', 'fresh', params).then(function (reply) { return reply ? copy(reply.response, reply.age) : pushed(); },
      function (error) { if (error && error.code === 'unknown_module') return pushed(); throw error; });
  };
  var result = function (data, age, stale, later) {
    later.catch(function () { /* a page that ignores `fresh` has no unhandled rejection */ });
    return { data: data, age: age, stale: stale, fresh: later };
  };
  var nothingLater = function () { return Promise.resolve(null); };
  var kept = early && early.kept(params.key, params.withCookies);
  if (kept) return Promise.resolve(result(prefetchedResponse(kept.reply), kept.age, true, fresh()));
  var now = pushed();
  if (now) return Promise.resolve(result(now.data, now.age, false, nothingLater()));
  return call('prefetch', 'kept', params).then(function (reply) {
    if (reply) return result(prefetchedResponse(reply.response), reply.age, !!reply.stale, reply.refreshing ? fresh() : nothingLater());
    var late = pushed();
    return late ? result(late.data, late.age, false, nothingLater()) : result(null, null, false, fresh());
  }, function (error) {
    if (error && error.code === 'unknown_module') return result(null, null, false, nothingLater());
    throw error;
  });
}

var api = {
  call: call,
  on: function (name, handler) {
    if (typeof handler !== 'function') throw new TypeError('handler must be a function');
    var handlers = listeners.get(name) || [];
    if (handlers.indexOf(handler) < 0) handlers.push(handler);
    listeners.set(name, handlers);
    return function () { api.off(name, handler); };
  },
  off: function (name, handler) {
    var handlers = listeners.get(name);
    if (!handlers) return;
    if (handler === undefined) { listeners.delete(name); return; }
    var index = handlers.indexOf(handler);
    if (index >= 0) handlers.splice(index, 1);
  },
  onSnapshot: function (capture) {
    if (capture !== null && typeof capture !== 'function') throw new TypeError('capture must be a function or null');
    snapshotCapture = capture;
  },
  prefetched: function (key, options) {
    if (typeof key !== 'string') return Promise.reject(new TypeError('key must be a string'));
    var params = { key: key, page: location.href };
    if (options && typeof options.withCookies === 'boolean') params.withCookies = options.withCookies;
    // Pushed into the document already (hybrid-prefetch.js): no round trip. Asked for and
    // not there: it may have been pushed while the question was on its way.
    var early = window.__hybridkitPrefetchEarly;
    if (options && options.stale === true) return prefetchedCopies(params, early);
    var pushed = function () { var reply = early && early.take(key, params.withCookies); return reply ? prefetchedResponse(reply) : null; };
    var now = pushed();
    if (now) return Promise.resolve(now);
    // A container with nothing to prefetch has no prefetch module: that is "none", not an error.
    return call('prefetch', 'take', params).then(function (reply) { return reply ? prefetchedResponse(reply) : pushed(); },
      function (error) { if (error && error.code === 'unknown_module') return pushed(); throw error; });
  },
  prerender: function (url) {
    // Asks the container to load a page of this document's origin hidden (docs/prerender.md).
    var absolute;
    try { absolute = new URL(String(url), document.baseURI); absolute.hash = ''; } catch (e) {
      return Promise.reject(new TypeError('url must be a URL'));
    }
    return call('prerender', 'request', { urls: [absolute.href] }).then(function (reply) {
      return !!(reply && reply.accepted && reply.accepted.length);
    });
  },
  get ready() { return ready; },
  get version() { return (info && info.version) || RUNTIME_VERSION; },
  get runtimeVersion() { return RUNTIME_VERSION; },
  get capabilities() { return (info && info.capabilities) || {}; },
  get modules() { return (info && info.modules) || []; },
  get transport() { return defaultTransport; },
  get pendingCount() { return pending.size; },
  __hybridkit: true
};
Object.defineProperty(window, 'hybrid', { value: Object.freeze(api), enumerable: true });
