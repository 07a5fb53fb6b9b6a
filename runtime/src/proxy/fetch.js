// ---- fetch -----------------------------------------------------------------------------
var nativeFetch = window.fetch;
// @include ../shared/response.js
var byteStreams = (function () {
  try { new ReadableStream({ type: 'bytes' }); return true; } catch (e) { return false; }
})();
function abortError(signal) {
  if (quirks.abortIgnoresReason || !signal || signal.reason === undefined) return new DOMException('Fetch is aborted', 'AbortError');
  return signal.reason;
}
function fetchError(error) {
  if (isPolicyRefusal(error)) return new TypeError(quirks.networkErrorMessage);
  var typeError = new TypeError('Load failed: ' + (error && error.code ? error.code + ': ' : '') +
    (error && error.message || error));
  if (error && error.code) typeError.code = error.code;
  return typeError;
}
function getter(object, name, value, computed) {
  Object.defineProperty(object, name, { configurable: true, enumerable: false,
    get: computed ? value : function () { return value; } });
}
// A network response's headers cannot be changed by the page (their guard is "immutable").
function immutable(headers) {
  ['append', 'set', 'delete'].forEach(function (name) {
    Object.defineProperty(headers, name, { configurable: true, value: function () {
      throw new TypeError("Failed to execute '" + name + "' on 'Headers': Headers are immutable");
    } });
  });
  return headers;
}
// What a Response built by script lacks of a network response: type, url, redirected, the
// masking of opaque responses and immutable headers, kept by clone().
var bodyMethods = ['arrayBuffer', 'blob', 'bytes', 'formData', 'json', 'text'];
function decorate(response, head, sink) {
  var masked = head.type === 'opaque' || head.type === 'opaqueredirect';
  var headers = masked ? new Headers() : headersFrom(head.headers);
  getter(response, 'type', head.type || 'basic');
  getter(response, 'url', head.type === 'opaque' ? '' : head.url);
  getter(response, 'redirected', head.type === 'opaque' ? false : !!head.redirected);
  getter(response, 'headers', immutable(headers));
  if (masked) {
    getter(response, 'status', 0);
    getter(response, 'ok', false);
    getter(response, 'statusText', '');
  }
  Object.defineProperty(response, 'clone', { configurable: true, value: function clone() {
    if (sink.stream && sink.stream.locked) throw new TypeError('Response body is locked');
    var copy = Response.prototype.clone.call(this);
    if (!sink.native) return decorate(copy, head, sink);
    // A clone of a whole reply has a body of its own, errored with the original's by an abort.
    var twin = { native: true, ended: true, empty: sink.empty, drained: !!sink.empty, aborted: sink.aborted, controller: null, clones: [] };
    (sink.clones = sink.clones || []).push(twin);
    return decorate(copy, head, twin);
  } });
  // A body errored by an abort: the engines reject its reads with the abort's error, without
  // reading (bodyUsed stays false); reading an errored stream of a built Response would give
  // a TypeError instead.
  if (sink.native) getter(response, 'body', function () { return lazyBody(this, sink); }, true);
  bodyMethods.forEach(function (name) {
    var original = Response.prototype[name];
    if (typeof original !== 'function') return;
    Object.defineProperty(response, name, { configurable: true, writable: true, value: function () {
      var aborted = sink && sink.aborted;
      if (aborted) return Promise.reject(aborted);
      // The page holds a reader of the body we made: the engine's own body is not locked
      // yet, but the page's body is.
      if (sink.stream && sink.stream.locked) return Promise.reject(new TypeError('Body is locked'));
      var read = original.call(this);
      if (sink.native) read = read.then(function (value) { sink.drained = true; return value; });
      if (name === 'blob' && quirks.fetchBlobEssence) {
        read = read.then(function (value) {
          var mime = parseMime(value.type);
          return mime && mime.essence !== value.type ? value.slice(0, value.size, mime.essence) : value;
        });
      }
      return read.catch(function (error) {
        if (sink && sink.aborted) throw sink.aborted;
        throw error;
      });
    } });
  });
  return response;
}
// A body stream fed by `sink`: chunks wait in the sink until the page reads (pull), so the
// sink knows when the page has read it to the end (`drained`: an abort then changes nothing),
// and a page that cancels the stream cancels the transfer.
function bodyStream(sink) {
  var pull = function (controller) {
    if (sink.queue.length) { controller.enqueue(sink.queue.shift()); return; }
    if (sink.ended) { sink.drained = true; controller.close(); return; }
    return new Promise(function (resolve) {
      sink.wake = function () {
        try { pull(controller); } catch (e) { /* errored or cancelled meanwhile */ }
        resolve();
      };
    });
  };
  var source = {
    start: function (controller) { sink.controller = controller; },
    pull: pull,
    cancel: function () { sink.ended = true; sink.queue = []; if (sink.cancel) sink.cancel(); }
  };
  if (byteStreams) source.type = 'bytes';
  return new ReadableStream(source);
}
// The body of a whole reply: the engine's own body (its text() and json() are the fastest),
// seen by the page through a stream of ours made when `body` is first read, so an abort can
// still error it. Reading ours reads the engine's; an abort errors ours unless it was read to
// its end.
var bodyProperty = Object.getOwnPropertyDescriptor(Response.prototype, 'body');
function lazyBody(response, sink) {
  if (sink.stream !== undefined) return sink.stream;
  var inner = bodyProperty.get.call(response);
  if (!inner) { sink.stream = null; return null; }
  var reader = null;
  sink.stream = new ReadableStream({
    start: function (controller) {
      sink.controller = controller;
      if (sink.aborted) controller.error(sink.aborted);
    },
    pull: function (controller) {
      if (!reader) reader = inner.getReader();
      var step = function () {
        return reader.read().then(function (result) {
          if (result.done) { sink.drained = true; controller.close(); return; }
          // WebKit's body of a Response built from empty bytes yields one empty chunk; a network
          // response's yields none.
          if (!result.value.length) return step();
          controller.enqueue(result.value);
        });
      };
      return step();
    },
    cancel: function (reason) { return (reader || inner.getReader()).cancel(reason); }
  });
  return sink.stream;
}
// The Response for a head: its body a stream fed by `sink` as chunks arrive. Both engines give
// a network response to HEAD, or with status 204/205/304, an empty body rather than none; a
// Response built by script cannot have one with those statuses, so `body` is an own getter.
// `whole`: the reply that carries the head also carries the whole body.
function makeResponse(head, whole) {
  var sink = { controller: null, queue: [], ended: false, drained: false, wake: null, aborted: null, cancel: null };
  var masked = head.type === 'opaque' || head.type === 'opaqueredirect';
  var headers = masked ? new Headers() : headersFrom(head.headers);
  if (whole && !masked && NULL_BODY_STATUS.indexOf(head.status) < 0) {
    // A string body would get a default Content-Type the network response may not have.
    var content = typeof head.text === 'string' && headers.has('content-type') ? head.text : replyBytes(head);
    sink.native = true;
    sink.ended = true;
    // An empty body is closed before anything can abort it: an abort leaves it closed.
    sink.empty = content.length === 0;
    sink.drained = sink.empty;
    var built = new Response(content, { status: head.status, statusText: head.statusText, headers: headers });
    return { response: decorate(built, head, sink), sink: sink };
  }
  var stream = null, emptyBody = null;
  if (head.type === 'opaqueredirect') {
    if (quirks.opaqueRedirectBody) emptyBody = bodyStream(sink);
  } else if (head.type !== 'opaque') {
    if (NULL_BODY_STATUS.indexOf(head.status) >= 0) emptyBody = bodyStream(sink); else stream = bodyStream(sink);
  }
  var response = new Response(stream, { status: masked ? 200 : head.status, statusText: masked ? '' : head.statusText, headers: headers });
  if (emptyBody) getter(response, 'body', emptyBody);
  return { response: decorate(response, head, sink), sink: sink };
}
function wake(sink) {
  var waiting = sink.wake;
  sink.wake = null;
  if (waiting) waiting();
}
function feed(sink, bytes) {
  if (sink.ended || !bytes.length) return;
  sink.queue.push(bytes);
  wake(sink);
}
// The body's end: a stream with nothing left queued closes now (no read need come first), so an
// abort after it leaves it closed, as the standard's "abort fetch" errors only a readable stream.
function close(sink) {
  if (sink.ended) return;
  sink.ended = true;
  if (!sink.queue.length && !sink.wake && sink.controller) {
    sink.drained = true;
    try { sink.controller.close(); } catch (e) { /* cancelled meanwhile */ }
    return;
  }
  wake(sink);
}
// Errors the body unless the page has read it to its end (the standard's "abort fetch" errors
// a body only while it is readable).
function error(sink, reason) {
  if (sink.drained) return;
  sink.ended = true;
  sink.queue = [];
  sink.wake = null;
  if (sink.controller) { try { sink.controller.error(reason); } catch (e) { /* already closed */ } }
}
// An abort after the response: the body errors unless it was read to its end.
function abortBody(sink, signal) {
  (sink.clones || []).forEach(function (twin) { abortBody(twin, signal); });
  if (sink.drained || !sink.native && sink.ended && !sink.queue.length && !sink.controller) return;
  sink.aborted = abortError(signal);
  error(sink, sink.aborted);
}

// A fetch body as the page gave it, read only once the request is known to be proxied: a Blob
// (a File, or FormData made one) as it is, the bytes of a BufferSource, string or
// URLSearchParams copied at the call as the engine copies them (a detached buffer is no bytes);
// and an empty body of the same kind for the Request that checks the call (same errors, same
// Content-Type). Reading the body back from the Request instead (request.blob()) made a new
// Blob of it, which WebKit keeps in its network process: a 50 MB body crossed two more
// processes that way before its first slice left the page. A stream, and a resizable buffer
// (which the engine refuses), still go through the Request.
function directBody(init) {
  var body = init ? init.body : null;
  if (body instanceof Blob) return { standIn: new Blob([], { type: body.type }), take: function () { return body; } };
  if (body instanceof ArrayBuffer && !body.resizable) {
    return { standIn: new Uint8Array(0), take: function () { return new Uint8Array(body.byteLength ? body.slice(0) : 0); } };
  }
  if (ArrayBuffer.isView(body) && body.buffer instanceof ArrayBuffer && !body.buffer.resizable) {
    return { standIn: new Uint8Array(0), take: function () {
      return new Uint8Array(body.byteLength ? body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) : 0);
    } };
  }
  if (typeof body === 'string') return { standIn: '', take: function () { return utf8.encode(body); } };
  if (body instanceof URLSearchParams) return { standIn: new URLSearchParams(), take: function () { return utf8.encode(paramsText(body)); } };
  return null;
}
// `init` with another body; every other member still read from it (through its prototype
// chain, as the engine reads a dictionary).
function withBody(init, body) { return Object.create(init, { body: { value: body, enumerable: true } }); }

window.fetch = function fetch(input, init) {
  var request;
  var file = !!init && (init.body instanceof FormData || init.body instanceof Blob);
  var direct = null;
  try {
    if (init && init.body instanceof FormData) init = withBody(init, multipartBody(init.body));
    direct = directBody(init);
    request = new Request(input, direct ? withBody(init, direct.standIn) : init);
  } catch (e) { return Promise.reject(e); }
  // A keepalive request is the engine's: it must outlive its document (a beacon from `pagehide`),
  // and the bridge answers no call of a document that has gone.
  var url = request.keepalive ? null : proxiedURL(request.url);
  if (!url) return nativeFetch.apply(this, arguments);
  var taken = null;
  try { taken = direct ? direct.take() : null; } catch (e) { return Promise.reject(e); }
  var signal = request.signal;
  if (signal && signal.aborted) return Promise.reject(abortError(signal));
  return new Promise(function (resolve, reject) {
    var sink = null;
    var settled = false;
    // The bridge call ends with the page's signal, or when the page cancels the body.
    var transfer = new AbortController();
    if (signal) {
      signal.addEventListener('abort', function () {
        transfer.abort();
        if (!settled) { settled = true; reject(abortError(signal)); }
        if (sink) abortBody(sink, signal);
      });
    }
    // A Blob/FormData body, or a large one, is streamed: its bytes stay in the page.
    // A GET or HEAD has no body (the Request refused one): nothing to read back from it (on
    // WebKit, reading even an empty body is a trip to its network process).
    var bodiless = request.method === 'GET' || request.method === 'HEAD';
    (taken !== null ? Promise.resolve(taken) : bodiless ? Promise.resolve(new Uint8Array(0)) : request.blob()).then(function (data) {
      if (streamsBody(data instanceof Blob ? data.size : data.byteLength, file)) return { source: bodySource(data) };
      return data instanceof Blob ? data.arrayBuffer().then(function (buffer) { return { bytes: new Uint8Array(buffer) }; }) : { bytes: data };
    }).then(function (body) {
      if (transfer.signal.aborted) return;
      transmit({ url: url.href, method: request.method, headers: headerPairs(request.headers),
        body: body.bytes && body.bytes.byteLength ? body.bytes : null, source: body.source || null,
        redirect: request.redirect, mode: request.mode,
        credentials: request.credentials, referrer: referrerSource(request.referrer), referrerPolicy: request.referrerPolicy,
        integrity: request.integrity,
        cache: request.cache === 'only-if-cached' && quirks.onlyIfCachedUsesNetwork ? 'force-cache' : request.cache }, {
        head: function (head, whole) {
          if (settled) return;
          var made;
          try { made = makeResponse(head, whole); } catch (e) { settled = true; reject(fetchError(e)); return; }
          sink = made.sink;
          sink.cancel = function () { transfer.abort(); };
          settled = true;
          resolve(made.response);
        },
        chunk: function (bytes) { if (sink) feed(sink, bytes); },
        end: function (reply) {
          if (!sink || sink.native) return;
          feed(sink, replyBytes(reply));
          close(sink);
        },
        fail: function (failed) {
          if (!settled) { settled = true; reject(fetchError(failed)); } else if (sink) error(sink, fetchError(failed));
        }
      }, transfer.signal);
    }, function (e) { if (!settled) { settled = true; reject(e); } });
  });
};
function headerPairs(headers) {
  var pairs = [];
  headers.forEach(function (value, name) { pairs.push([name, value]); });
  return pairs;
}
