// ---- the API ---------------------------------------------------------------------------
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
