// GENERATED FILE, do not edit: scripts/build-runtime.mjs assembled it from these modules of
//   hybrid/main.js, shared/globals.js, shared/protocol.js, shared/event-sender.js, hybrid/bytes.js,
//   shared/base64.js, shared/response.js, hybrid/byte-channel.js, hybrid/json-bytes.js,
//   hybrid/receive.js, hybrid/send.js, hybrid/url-transport.js, hybrid/lifecycle.js, hybrid/api.js.
// Edit them and run `make runtime` (docs/page-runtime.md).
// HybridKit page runtime: `window.hybrid`, the same API on every engine and transport.
//
// Injected by the container at document start, main frame only, in the page's own world.
// It never touches a native message handler itself: it talks to the container's transport
// (an isolated script world where the engine has one) through DOM CustomEvents whose
// `detail` is a JSON string, or, for the legacy transport, through a queue the container
// fetches when a hidden iframe navigates to `hybrid://__queue__`.
(function () {
  'use strict';
  if (window.hybrid && window.hybrid.__hybridkit) return;

  // Provides: takeGlobal(name) -> the value of window[name], deleted from the window (the
  // container's settings for a script, set just before it: no page script ever sees them).
  function takeGlobal(name) {
    var value = window[name];
    try { delete window[name]; } catch (e) { /* non-configurable: ignore */ }
    return value;
  }
  // The DOM events between the page runtime (hybrid.js, page world) and the bridge transport
  // (hybrid-transport.js, the bridge's world): each carries one JSON string as its `detail`.
  // Provides: SEND_EVENT (runtime -> transport), RECV_EVENT (transport -> runtime), HELLO_EVENT
  // (the runtime has started: the transport repeats its `ready`).
  var SEND_EVENT = 'hybridkit:send';
  var RECV_EVENT = 'hybridkit:recv';
  var HELLO_EVENT = 'hybridkit:hello';
  // Provides: eventSender(type) -> function (text) dispatching `text` on `document` as the detail of
  // a CustomEvent of `type`.
  // One event re-initialised per message instead of one made per message (about half the cost of
  // the DOM round trip, measured: docs/bridge.md, "What a call costs"). An event still being
  // dispatched (a message sent from a listener of one) cannot be re-initialised: that message gets
  // a new event. WebKit holds a detail given to initCustomEvent weakly (no write barrier), so the
  // text is held here while it is dispatched, and the detail is cleared after (a page that keeps
  // the event reads null, and no message is kept alive by it).
  function eventSender(type) {
    var event = null, held = null;
    return function (text) {
      if (event === null || event.eventPhase !== 0) event = new CustomEvent(type);
      var current = event, outer = held;
      held = text;
      current.initCustomEvent(type, false, false, text);
      document.dispatchEvent(current);
      current.initCustomEvent(type, false, false, null);
      held = outer;
    };
  }

  var boot = takeGlobal('__hybridkitBoot') || {};

  var RUNTIME_VERSION = '1.0.0';
  var scheme = boot.urlScheme || 'hybrid';
  var defaultTransport = boot.transport === 'url' ? 'url' : 'event';
  // The byte channel (docs/bridge.md, "Bytes without base64"): where the engine has one, byte
  // values of at least `byteThreshold` bytes cross as fetch bodies to `byteChannel + token`. The
  // page's fetch as it is at document start is kept, before any page script runs: the engine's,
  // or the request proxy's wrapper, which hands every URL it does not proxy to the engine's.
  var byteChannel = typeof boot.byteChannel === 'string' && typeof window.fetch === 'function' ? boot.byteChannel : null;
  var byteThreshold = boot.byteThreshold || 65536;
  var channelFetch = byteChannel ? window.fetch.bind(window) : null;
  // Where a loopback endpoint (Blink) serves the channel, reads have a path of their own and posts
  // are Blobs (the constructor kept at document start too).
  var byteChannelReads = byteChannel && typeof boot.byteChannelReads === 'string' ? boot.byteChannelReads : byteChannel;
  var channelBlob = byteChannel && boot.byteChannelBlobs === true && typeof window.Blob === 'function' ? window.Blob : null;

  var nonce = null;
  var info = null;
  // The container's message limit is known from document start (boot), so a call made before the
  // handshake, or over the URL transport, is measured before anything is read or sent.
  function messageLimit() { return (info && info.maxMessageBytes) || boot.maxMessageBytes; }
  // The container knows this document: set by `ready`, cleared when the page goes into the
  // page cache (a restored document is announced again before its calls are sent).
  var announced = false;
  // A random first id: a late reply meant for a previous document can never match a call here.
  var nextId = 1 + Math.floor(Math.random() * 1e9);
  var pending = new Map();
  var listeners = new Map();
  var waiting = [];
  var resolveReady;
  var ready = new Promise(function (resolve) { resolveReady = resolve; });

  function HybridError(code, message, data) {
    var error = new Error(message || code);
    error.name = 'HybridError';
    error.code = code;
    if (data !== undefined && data !== null) error.data = data;
    return error;
  }

  // ---- binary ----------------------------------------------------------------------------
  // Bytes travel as {"$bytes": base64}: ArrayBuffers, typed arrays, DataViews and Blobs in params
  // are encoded on the way out; results carrying that form come back as Uint8Arrays. No engine
  // carries bytes in script messages as bytes (EngineCapabilities.binaryMessages, measured).
  // Provides: callOf(fn, self, ...args), toBase64(bytes) -> string, fromBase64(string) -> Uint8Array.
  // The engines' own base64 (Uint8Array.prototype.toBase64 / Uint8Array.fromBase64: WebKitGTK 2.50
  // and Chromium 156 have both), taken before the page's scripts run; a loop over the bytes where
  // they are missing (measured on Blink, where every byte value crosses as base64: docs/bridge.md).
  // Bound here, so a page replacing them or Function.prototype.call later changes nothing either.
  var callOf = Function.prototype.call.bind(Function.prototype.call);
  var nativeToBase64 = typeof Uint8Array.prototype.toBase64 === 'function' ? Uint8Array.prototype.toBase64 : null;
  var nativeFromBase64 = typeof Uint8Array.fromBase64 === 'function' ? Uint8Array.fromBase64.bind(Uint8Array) : null;
  // `view`: an ArrayBuffer, a typed array or a DataView.
  function toBase64(view) {
    var bytes = new Uint8Array(view.buffer || view, view.byteOffset || 0, view.byteLength);
    if (nativeToBase64) return callOf(nativeToBase64, bytes);
    var parts = [];
    for (var i = 0; i < bytes.length; i += 0x8000) {
      parts.push(String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000)));
    }
    return btoa(parts.join(''));
  }

  function fromBase64(text) {
    if (nativeFromBase64) return nativeFromBase64(text);
    var binary = atob(text);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }
  // Provides: NULL_BODY_STATUS (the statuses whose response has no body: Fetch's "null body
  // status"), headersFrom(pairs) -> Headers of the container's [name, value] pairs (a pair the
  // engine refuses is left out).
  var NULL_BODY_STATUS = [101, 103, 204, 205, 304];
  function headersFrom(pairs) {
    var headers = new Headers();
    pairs.forEach(function (pair) { try { headers.append(pair[0], pair[1]); } catch (e) { /* skip */ } });
    return headers;
  }

  // A prefetched reply (status, statusText, url, [name, value] headers, text or base64 body)
  // as the Response the page's own fetch would have given it.
  function prefetchedResponse(reply) {
    var headers = headersFrom(reply.headers || []);
    var empty = NULL_BODY_STATUS.indexOf(reply.status) >= 0;
    var body = empty ? null : typeof reply.text === 'string' ? reply.text : fromBase64(reply.body || '');
    var response = new Response(body, { status: reply.status, statusText: reply.statusText, headers: headers });
    Object.defineProperty(response, 'url', { value: reply.url });
    return response;
  }

  // Whether a message's value (or event payload) may name bytes: an object or array in which a
  // key `"$bytes"` appears (or, with the byte channel, `"$blob"`, `"$feed"`, `"$sink"`). One scan
  // for `"$`, each hit checked for the four names: a reply carrying a large text is read once.
  var BYTE_KEYS = ['bytes"', 'blob"', 'feed"', 'sink"'];
  function mayCarryBytes(text) {
    var at = text.indexOf('"value":');
    if (at < 0) at = text.indexOf('"payload":') + 2;
    if (at < 2) return false;
    var first = text.charCodeAt(at + 8);
    if (first !== 123 && first !== 91) return false;  // '{' or '['
    var names = byteChannel !== null ? BYTE_KEYS.length : 1;
    for (var i = text.indexOf('"$', at); i >= 0; i = text.indexOf('"$', i + 2)) {
      for (var n = 0; n < names; n++) if (text.startsWith(BYTE_KEYS[n], i + 2)) return true;
    }
    return false;
  }

  // ---- the byte channel ------------------------------------------------------------------
  // A 128-bit random token, 32 lower-case hex digits (the store's form).
  function newToken() {
    var words = crypto.getRandomValues(new Uint32Array(4));
    var out = '';
    for (var i = 0; i < 4; i++) out += ('0000000' + words[i].toString(16)).slice(-8);
    return out;
  }

  function channelError(response, what) {
    return response.text().then(function (why) {
      var code = response.status === 413 ? 'payload_too_large' : response.status === 507 ? 'queue_full' : 'internal';
      throw HybridError(code, what + ' (' + response.status + ': ' + why + ')');
    });
  }

  // Posts each large byte value of a call to the channel under a new token, then sends the call
  // naming the tokens ({"$blob": token, "size": N}); an item is `{key, bytes}`, or `{key, blob, size}`
  // for a Blob posted unread (readBlobsThenSend). Only ArrayBuffer-backed bodies are posted to a
  // custom scheme: a Blob body there crashes WebKitGTK 2.50 (Blobs were read to bytes before this).
  // A loopback endpoint (Blink) is posted the bytes wrapped in a Blob (`channelBlob`): Chromium then
  // streams the body to the socket, where an ArrayBuffer body is copied into the request (measured
  // with `hybrid bench data`: upload_50mb_ratio 1.22–1.35 against 1.55–1.76).
  // Bytes over the container's limit fail the call (`payload_too_large`); any other refusal (the
  // store full for now, a page whose Content-Security-Policy does not allow the channel's scheme
  // in `connect-src`, an opaque origin) sends the call with its bytes inline instead, and a
  // channel the page cannot reach at all is not tried again in this document.
  var channelBroken = false;
  function postBytesThenSend(entry, items) {
    entry.tokens = new Map();
    Promise.all(items.map(function (item) {
      var token = newToken();
      entry.tokens.set(item.key, { token: token, size: item.blob ? item.size : item.bytes.byteLength });
      var body = item.blob || (channelBlob !== null ? new channelBlob([item.bytes]) : item.bytes);
      return channelFetch(byteChannel + token, { method: 'POST', body: body, mode: 'cors', credentials: 'omit', cache: 'no-store' })
        .then(function (response) { if (!response.ok) return channelError(response, 'the bytes of a param were refused'); },
              function (error) { channelBroken = true; throw error; });
    })).then(function () {
      if (pending.has(entry.id)) queueOrTransmit(entry);
    }, function (error) {
      if (!pending.has(entry.id)) return;
      if (error && error.code === 'payload_too_large') {
        finish(entry);
        entry.reject(error);
        return;
      }
      entry.tokens = null;   // inline: tokens already posted expire unread
      // Blobs that were to be posted unread are read now, to go inline.
      readBlobs(entry, items.filter(function (item) { return item.blob; }).map(function (item) { return item.blob; }), function () {
        queueOrTransmit(entry);
      });
    });
  }

  // The function a received `$sink` becomes: posts a Blob to the sink's token, whole (Chromium
  // streams it to the socket unread); resolves when the app has taken every byte. The Blob goes
  // without its type (a slice of it, no copy): a Content-Type the channel does not need would make
  // the post a CORS preflight's. The post is not aborted with the call that offered the sink: the
  // app, cancelling that call, stops reading it (so the call ends cancelled, not with a short body).
  function postToSink(token) {
    return function (blob) {
      return channelFetch(byteChannel + token, { method: 'POST', body: blob.slice(0, blob.size), mode: 'cors', credentials: 'omit',
        cache: 'no-store' })
        .then(function (response) { if (!response.ok) return channelError(response, 'the body was refused'); });
    };
  }

  // The stream a received `$feed` becomes: one read of the feed, begun at once, whose chunks it
  // gives as they arrive; a read that fails errors it, and cancelling it cancels the read.
  function feedStream(token) {
    var reader = null;
    var opened = channelFetch(byteChannelReads + token, { mode: 'cors', credentials: 'omit', cache: 'no-store' }).then(function (response) {
      if (!response.ok) return channelError(response, 'the bytes of a stream could not be fetched');
      reader = response.body.getReader();
    });
    opened.catch(function () { /* the stream's reader sees it */ });
    return new ReadableStream({
      pull: function (controller) {
        return opened.then(function () { return reader.read(); }).then(function (result) {
          if (result.done) controller.close(); else controller.enqueue(result.value);
        });
      },
      cancel: function (reason) {
        return opened.then(function () { return reader.cancel(reason); }, function () {});
      }
    });
  }

  // Fetches the bytes a received `$blob` names into its place ({holder, key, token, size}).
  function fetchBytes(ref) {
    return channelFetch(byteChannelReads + ref.token, { mode: 'cors', credentials: 'omit', cache: 'no-store' }).then(function (response) {
      if (!response.ok) return channelError(response, 'the bytes of an answer could not be fetched');
      return response.arrayBuffer();
    }).then(function (buffer) {
      if (buffer.byteLength !== ref.size) throw HybridError('internal', 'the bytes of an answer arrived with ' + buffer.byteLength + ' of ' + ref.size + ' bytes');
      ref.holder[ref.key] = new Uint8Array(buffer);
    });
  }

  // ---- bytes in JSON ---------------------------------------------------------------------
  // How byte values are found in params, written into an envelope and revived from a message.
  function hasOwnKeys(object) {
    for (var key in object) return true;
    return false;
  }

  // Blobs (and Files) in params are read before the call is sent; while its envelope is made,
  // `blobBytes` maps each of them to its bytes, and `channelTokens` each value posted to the byte
  // channel to its token (named once: a value that appears again goes inline).
  var blobBytes = null;
  var channelTokens = null;

  function replacer(key, value) {
    if (value === null || typeof value !== 'object') return value;
    if (channelTokens !== null) {
      var ref = channelTokens.get(value);
      if (ref && !ref.named) { ref.named = true; return { $blob: ref.token, size: ref.size }; }
    }
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return { $bytes: toBase64(value) };
    if (blobBytes !== null && value instanceof Blob && blobBytes.has(value)) return { $bytes: toBase64(blobBytes.get(value)) };
    return value;
  }

  // The Blobs in `value` (objects and arrays, at most 64 levels deep), each once, and into `large`
  // (when given) the byte values of at least `byteThreshold` bytes. Every object is visited once,
  // so shared or cyclic params cost one pass (a cycle then fails in JSON.stringify).
  function findBlobs(value, found, depth, seen, large) {
    if (value === null || typeof value !== 'object' || depth > 64) return found;
    seen = seen || new Set();
    if (seen.has(value)) return found;
    seen.add(value);
    if (typeof Blob !== 'undefined' && value instanceof Blob) {
      found.push(value);
      return found;
    }
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
      if (large && value.byteLength >= byteThreshold) large.push({ key: value, bytes: value });
      return found;
    }
    for (var key in value) {
      if (Object.prototype.hasOwnProperty.call(value, key)) findBlobs(value[key], found, depth + 1, seen, large);
    }
    return found;
  }

  // While a message is parsed: the `$blob`s in it, to fetch before it is delivered.
  var revivedBlobs = null;

  function reviver(key, value) {
    if (value !== null && typeof value === 'object' && typeof value.$bytes === 'string' && Object.keys(value).length === 1) {
      try { return fromBase64(value.$bytes); } catch (e) { return value; }
    }
    if (byteChannel !== null && value !== null && typeof value === 'object' && typeof value.$blob === 'string' &&
        typeof value.size === 'number' && Object.keys(value).length === 2) {
      revivedBlobs.push({ holder: this, key: key, token: value.$blob, size: value.size });
      return null;
    }
    // A sink: a function that posts a Blob to it whole (the app reads it as it arrives), where the
    // channel takes Blob posts (a loopback endpoint) and the page can reach it; null elsewhere.
    if (byteChannel !== null && value !== null && typeof value === 'object' && typeof value.$sink === 'string' &&
        Object.keys(value).length === 1) {
      return channelBlob !== null && !channelBroken ? postToSink(value.$sink) : null;
    }
    // A feed: bytes the app streams as they arrive; the page gets a stream over one read of them,
    // opened at once but awaited by nobody: later messages never wait for it.
    if (byteChannel !== null && value !== null && typeof value === 'object' && typeof value.$feed === 'string' &&
        Object.keys(value).length === 1) {
      return feedStream(value.$feed);
    }
    return value;
  }

  // ---- receiving -------------------------------------------------------------------------
  // Messages wait here, in order, behind one whose bytes are still being fetched.
  var inbound = null;
  var inboundWaiting = 0;

  function receive(text) {
    var message;
    // The reviver costs a call per value, so it runs only when the text may carry bytes: its
    // value or payload is an object or array that mentions "$bytes" (a large string never is).
    var blobs = null;
    try {
      if (mayCarryBytes(text)) {
        revivedBlobs = [];
        message = JSON.parse(text, reviver);
        blobs = revivedBlobs;
      } else {
        message = JSON.parse(text);
      }
    } catch (e) { return; } finally { revivedBlobs = null; }
    if (!message || typeof message !== 'object') return;
    if ((blobs === null || blobs.length === 0) && inboundWaiting === 0) { deliver(message); return; }
    blobs = blobs || [];
    inboundWaiting++;
    var fetched = Promise.all(blobs.map(fetchBytes));
    inbound = (inbound || Promise.resolve()).then(function () { return fetched; }).then(function () {
      deliver(message);
    }, function (error) {
      // Bytes the page could not fetch fail their call (a reply, or a progress report: a call
      // must not go on as if a report it never saw had not been sent); an event's are reported.
      var failed = { code: error.code || 'internal', message: error.message };
      if (message.t === 'reply' || message.t === 'progress') deliver({ t: 'reply', id: message.id, ok: false, error: failed });
      else report(error);
    }).then(function () { inboundWaiting--; });
  }

  function deliver(message) {
    switch (message.t) {
      case 'ready': becomeReady(message); break;
      case 'reply': settle(message); break;
      case 'progress': progress(message); break;
      case 'event': dispatchEvent(message.name, message.payload); break;
      default: break;
    }
  }

  function becomeReady(message) {
    if (typeof message.nonce === 'string') nonce = message.nonce;
    info = message.info || info || {};
    announced = true;
    var queued = waiting;
    waiting = [];
    for (var i = 0; i < queued.length; i++) transmit(queued[i]);
    resolveReady(api);
  }

  function settle(message) {
    var call = pending.get(message.id);
    if (!call) return;
    finish(call);
    if (message.ok) {
      call.resolve(message.value);
    } else {
      var e = message.error || {};
      call.reject(HybridError(e.code || 'internal', e.message, e.data));
    }
  }

  function progress(message) {
    var call = pending.get(message.id);
    if (!call || typeof call.onProgress !== 'function') return;
    try { call.onProgress(message.value); } catch (e) { report(e); }
  }

  function dispatchEvent(name, payload) {
    var handlers = listeners.get(name);
    if (!handlers) return;
    handlers.slice().forEach(function (handler) {
      try { handler(payload); } catch (e) { report(e); }
    });
  }

  function report(error) { setTimeout(function () { throw error; }, 0); }

  document.addEventListener(RECV_EVENT, function (event) {
    // Read `detail` once: across script worlds every read may copy it.
    var detail = event.detail;
    if (typeof detail === 'string') receive(detail);
  });

  // ---- sending ---------------------------------------------------------------------------
  // Calls: the table of pending calls (`pending`, by id), their envelopes, limits, timeouts and
  // aborts, and the queue of calls made before the container knows this document (`waiting`).
  function finish(call) {
    pending.delete(call.id);
    if (call.timer) clearTimeout(call.timer);
    if (call.signal && call.onAbort) call.signal.removeEventListener('abort', call.onAbort);
  }

  function envelope(call) {
    // `v` and `id` come first: the container reads the id from the first bytes of a message
    // it refuses to parse (too large), so it can still answer this call.
    // Only objects can hold bytes; a replacer takes JSON.stringify off its fast path, so
    // strings and numbers (a large string is the common bulk payload) go without one.
    var params = call.params;
    blobBytes = call.blobBytes || null;
    channelTokens = call.tokens || null;
    try {
      return JSON.stringify({ v: 1, id: call.id, module: call.module, action: call.action,
        params: params, nonce: nonce, timeout: call.timeout },
        params !== null && typeof params === 'object' && (ArrayBuffer.isView(params) || params instanceof ArrayBuffer ||
          blobBytes !== null || hasOwnKeys(params)) ? replacer : undefined);
    } finally {
      blobBytes = null;
      channelTokens = null;
    }
  }

  // Reads the call's Blobs, then sends it. Blobs larger together than the container's message
  // limit allows (as base64) are refused without being read. Where the byte channel is a loopback
  // endpoint (Blink: `channelBlob`), a Blob of at least `byteThreshold` bytes is not read at all: it
  // is posted to the channel as it is, and Chromium streams it to the socket from its own process,
  // so its bytes never enter the page (a Blob body to WebKitGTK's custom scheme would crash it).
  function readBlobsThenSend(entry, blobs, large) {
    var limit = messageLimit();
    var total = 0;
    for (var i = 0; i < blobs.length; i++) total += blobs[i].size;
    if (limit && Math.ceil(total / 3) * 4 > limit) {
      finish(entry);
      entry.reject(HybridError('payload_too_large', 'Blob params of ' + total + ' bytes exceed the limit of ' + limit +
        ' bytes as base64', { size: Math.ceil(total / 3) * 4, limit: limit }));
      return;
    }
    var read = [];
    blobs.forEach(function (blob) {
      if (channelBlob !== null && large && blob.size >= byteThreshold) large.push({ key: blob, blob: blob, size: blob.size });
      else read.push(blob);
    });
    entry.blobBytes = new Map();
    readBlobs(entry, read, function () {
      if (large) {
        read.forEach(function (blob) {
          var bytes = entry.blobBytes.get(blob);
          if (bytes.byteLength >= byteThreshold) large.push({ key: blob, bytes: bytes });
        });
      }
      if (large && large.length > 0) postBytesThenSend(entry, large);
      else queueOrTransmit(entry);
    });
  }

  // Reads `blobs` into the call's `blobBytes`, then calls `then` (unless the call is over); a Blob
  // that cannot be read fails the call.
  function readBlobs(entry, blobs, then) {
    Promise.all(blobs.map(function (blob) { return blob.arrayBuffer(); })).then(function (buffers) {
      if (!pending.has(entry.id)) return;  // aborted or timed out meanwhile
      for (var i = 0; i < blobs.length; i++) entry.blobBytes.set(blobs[i], new Uint8Array(buffers[i]));
      then();
    }, function (error) {
      if (!pending.has(entry.id)) return;
      finish(entry);
      entry.reject(HybridError('bad_params', 'a Blob in params could not be read: ' + (error && error.message)));
    });
  }

  function transmit(call) {
    if (!pending.has(call.id)) return;
    var text;
    try { text = envelope(call); } catch (e) {
      finish(call);
      call.reject(HybridError('bad_params', 'params are not JSON-serialisable: ' + e.message));
      return;
    }
    var limit = messageLimit();
    // A JS string's length never exceeds its UTF-8 size, so this refuses only what the
    // container would refuse, without shipping it across processes first.
    if (limit && text.length > limit) {
      finish(call);
      call.reject(HybridError('payload_too_large', 'message of at least ' + text.length +
        ' bytes exceeds the limit of ' + limit + ' bytes', { size: text.length, limit: limit }));
      return;
    }
    post(text, call.transport);
  }

  // To the transport as the transport answers (shared/event-sender.js), or into the URL queue.
  var sendToTransport = eventSender(SEND_EVENT);
  function post(text, transport) {
    if (transport === 'url') { urlQueue.push(text); return; }
    sendToTransport(text);
  }

  function cancel(call) {
    if (nonce === null && call.transport !== 'url') return;
    post(JSON.stringify({ t: 'cancel', v: 1, id: call.id, nonce: nonce }), call.transport);
  }

  function call(module, action, params, options) {
    options = options || {};
    return new Promise(function (resolve, reject) {
      if (typeof module !== 'string' || typeof action !== 'string' || !module || !action) {
        reject(HybridError('bad_params', 'hybrid.call needs a module and an action name'));
        return;
      }
      var signal = options.signal;
      if (signal && signal.aborted) {
        reject(HybridError('cancelled', 'the call was aborted before it started'));
        return;
      }
      var timeout = options.timeout;
      if (timeout !== undefined && !(typeof timeout === 'number' && timeout > 0 && isFinite(timeout))) {
        reject(HybridError('bad_params', 'timeout must be a positive number of milliseconds'));
        return;
      }
      var entry = {
        id: nextId++, module: module, action: action,
        params: params === undefined ? {} : params,
        timeout: timeout === undefined ? undefined : Math.ceil(timeout),
        transport: options.transport === 'url' ? 'url' : defaultTransport,
        onProgress: options.onProgress, signal: signal,
        resolve: resolve, reject: reject, timer: null, onAbort: null
      };
      pending.set(entry.id, entry);
      if (timeout !== undefined) {
        // The container enforces the timeout too; this one also covers a lost transport.
        entry.timer = setTimeout(function () {
          if (!pending.has(entry.id)) return;
          finish(entry);
          cancel(entry);
          reject(HybridError('timeout', 'timed out after ' + timeout + ' ms', { timeout: timeout }));
        }, timeout);
      }
      if (signal) {
        entry.onAbort = function () {
          if (!pending.has(entry.id)) return;
          finish(entry);
          cancel(entry);
          reject(HybridError('cancelled', 'the call was aborted'));
        };
        signal.addEventListener('abort', entry.onAbort);
      }
      var large = byteChannel !== null && !channelBroken && entry.transport !== 'url' ? [] : null;
      var blobs = findBlobs(entry.params, [], 0, undefined, large);
      if (blobs.length > 0) readBlobsThenSend(entry, blobs, large);
      else if (large && large.length > 0) postBytesThenSend(entry, large);
      else queueOrTransmit(entry);
    });
  }

  function queueOrTransmit(entry) {
    if (!announced && entry.transport !== 'url') waiting.push(entry);
    else transmit(entry);
  }

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

  // ---- container lifecycle ---------------------------------------------------------------
  // Returning to a page from the page cache does not fire `load`: tell the page it resumed.
  // (The container emits the same event when it becomes visible again.)
  // Calls made from then on (a `resume` handler's, say) wait for the container to know the
  // restored document again, or it would refuse them as a stale document's.
  window.addEventListener('pagehide', function (event) {
    if (event.persisted && defaultTransport !== 'url') announced = false;
  });
  window.addEventListener('pageshow', function (event) {
    if (event.persisted) dispatchEvent('resume', { reason: 'pageshow', persisted: true });
  });
  // A capture function for the container's snapshot (canvas/WebGL content that an engine
  // snapshot renders blank): it returns a PNG data URL, or a Promise of one.
  var snapshotCapture = null;
  Object.defineProperty(window, '__hybridkitSnapshot', {
    value: function () {
      if (typeof snapshotCapture !== 'function') return null;
      return Promise.resolve().then(snapshotCapture).then(function (url) {
        return typeof url === 'string' && url.indexOf('data:image/png;base64,') === 0 ? url : null;
      }, function () { return null; });
    }
  });

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

  if (defaultTransport === 'url') {
    // No handshake on this transport: ask the `hybrid` module who we are.
    call('hybrid', 'info', {}, { transport: 'url' }).then(function (value) {
      becomeReady({ info: value });
    }, function () { becomeReady({ info: {} }); });
  } else {
    // The transport may have finished its handshake before this listener existed.
    document.dispatchEvent(new CustomEvent(HELLO_EVENT));
  }
})();
