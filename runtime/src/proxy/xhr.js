// ---- XMLHttpRequest ----------------------------------------------------------------------
var XHR = XMLHttpRequest.prototype;
var nativeXHR = { open: XHR.open, send: XHR.send, setRequestHeader: XHR.setRequestHeader, abort: XHR.abort,
  getResponseHeader: XHR.getResponseHeader, getAllResponseHeaders: XHR.getAllResponseHeaders,
  overrideMimeType: XHR.overrideMimeType };
var states = new WeakMap();
var shadowed = ['readyState', 'status', 'statusText', 'response', 'responseText', 'responseURL', 'responseXML'];
var FORBIDDEN = ['accept-charset', 'accept-encoding', 'access-control-request-headers', 'access-control-request-method',
  'connection', 'content-length', 'cookie', 'cookie2', 'date', 'dnt', 'expect', 'host', 'keep-alive', 'origin', 'referer',
  'set-cookie', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'via'];
var UNSENT = 0, OPENED = 1, HEADERS_RECEIVED = 2, LOADING = 3, DONE = 4;

function invalidState(message) { return new DOMException(message, 'InvalidStateError'); }

// The upload listener flag is decided at send() by whether the upload object has listeners
// then; a page cannot ask an EventTarget that, so listeners added with addEventListener are
// counted here (event handler attributes are read at send()).
var uploadListeners = new WeakMap();
var uploadHandlers = ['onloadstart', 'onprogress', 'onabort', 'onerror', 'onload', 'ontimeout', 'onloadend'];
if (typeof XMLHttpRequestUpload !== 'undefined') {
  var eventTarget = EventTarget.prototype;
  var listenerKey = function (type, listener, options) {
    var capture = typeof options === 'boolean' ? options : !!(options && options.capture);
    return { type: String(type), listener: listener, capture: capture };
  };
  Object.defineProperty(XMLHttpRequestUpload.prototype, 'addEventListener', { configurable: true, writable: true,
    value: function addEventListener(type, listener, options) {
      var upload = this;
      var result = eventTarget.addEventListener.apply(upload, arguments);
      if (listener && (typeof listener === 'function' || typeof listener === 'object')) {
        var signal = options && typeof options === 'object' ? options.signal : null;
        if (!(signal && signal.aborted)) {
          var list = uploadListeners.get(upload) || [];
          var key = listenerKey(type, listener, options);
          key.once = !!(options && typeof options === 'object' && options.once);
          if (!list.some(function (k) { return sameListenerKey(k, key); })) list.push(key);
          uploadListeners.set(upload, list);
          if (signal) signal.addEventListener('abort', function () { forget(upload, key); });
        }
      }
      return result;
    } });
  Object.defineProperty(XMLHttpRequestUpload.prototype, 'removeEventListener', { configurable: true, writable: true,
    value: function removeEventListener(type, listener, options) {
      forget(this, listenerKey(type, listener, options));
      return eventTarget.removeEventListener.apply(this, arguments);
    } });
}
function forget(upload, key) {
  var list = uploadListeners.get(upload);
  if (list) uploadListeners.set(upload, list.filter(function (k) { return !sameListenerKey(k, key); }));
}
function sameListenerKey(a, b) { return a.type === b.type && a.listener === b.listener && a.capture === b.capture; }
function hasUploadListeners(upload) {
  var list = uploadListeners.get(upload);
  if (list && list.length) return true;
  return uploadHandlers.some(function (name) { return upload[name] !== null && upload[name] !== undefined; });
}

function shadow(xhr, state) {
  shadowed.forEach(function (name) {
    Object.defineProperty(xhr, name, { configurable: true, enumerable: true, get: function () { return read(xhr, state, name); } });
  });
}
function unshadow(xhr) { shadowed.forEach(function (name) { delete xhr[name]; }); }

function read(xhr, state, name) {
  var ok = state.response && !state.error;
  switch (name) {
    case 'readyState': return state.readyState;
    case 'status': return ok ? state.response.status : 0;
    case 'statusText': return ok ? state.response.statusText : '';
    case 'responseURL': return ok ? state.response.url.replace(/#.*$/, '') : state.keptURL || '';
    case 'responseText':
      if (xhr.responseType !== '' && xhr.responseType !== 'text') {
        throw invalidState("responseText is only available if responseType is '' or 'text'");
      }
      return textResponse(xhr, state);
    case 'responseXML':
      if (xhr.responseType !== '' && xhr.responseType !== 'document') {
        throw invalidState("responseXML is only available if responseType is '' or 'document'");
      }
      if (state.readyState !== DONE || !ok) return null;
      return documentResponse(xhr, state);
    case 'response':
      return responseValue(xhr, state);
  }
}
function received(state) {
  if (!state.bytes || state.bytes.length !== state.receivedLength) state.bytes = concat(state.chunks, state.receivedLength);
  return state.bytes;
}
// The response's MIME type (text/xml when it has none) and the final one (overrideMimeType's).
function responseMime(state) {
  return extractMime(headerValue(state, 'content-type')) || parseMime('text/xml');
}
function finalMime(state) { return state.override || responseMime(state); }
function finalCharset(state) {
  var label = mimeParam(responseMime(state), 'charset');
  var override = mimeParam(state.override, 'charset');
  if (override !== null) label = override;
  return label !== null && decoderFor(label) ? label : null;
}
// The text response, decoded as the bytes arrive (a streaming decoder, as the engines use: a
// character cut between two chunks waits for the rest instead of decoding twice).
function textResponse(xhr, state) {
  if (state.readyState !== LOADING && state.readyState !== DONE) return '';
  if (!state.response || state.error) return '';
  var done = state.readyState === DONE;
  var run = state.decoding;
  if (!run) {
    if (!done && state.receivedLength < 3) return '';
    var head = received(state).subarray(0, 256);
    var charset = finalCharset(state);
    if (xhr.responseType === '' && charset === null && isXML(finalMime(state))) charset = xmlEncoding(head);
    var label = bomEncoding(head) || charset || 'utf-8';
    // A UTF-8 reply that crossed whole as text needs no decoding at all.
    if (state.textWhole && /^utf-?8$/i.test(label)) {
      state.decoding = { text: state.replyText.charCodeAt(0) === 0xFEFF ? state.replyText.slice(1) : state.replyText, whole: true };
      return state.decoding.text;
    }
    run = state.decoding = { decoder: decoderFor(label) || new TextDecoder(), index: 0, text: '', flushed: false };
  }
  if (run.whole) return run.text;
  while (run.index < state.chunks.length) run.text += run.decoder.decode(state.chunks[run.index++], { stream: true });
  if (done && !run.flushed) { run.text += run.decoder.decode(); run.flushed = true; }
  return run.text;
}

function xmlEncoding(bytes) {
  var head = String.fromCharCode.apply(null, bytes.subarray(0, 256));
  var match = /^<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(head);
  return match ? match[1] : null;
}
function documentResponse(xhr, state) {
  if ('document' in state) return state.document;
  var mime = finalMime(state);
  var doc = null;
  if ((isHTML(mime) && xhr.responseType === 'document') || isXML(mime)) {
    var charset = finalCharset(state) || (isXML(mime) ? xmlEncoding(received(state)) : null) || 'utf-8';
    var text = state.textWhole && /^utf-?8$/i.test(charset) ? state.replyText : decode(received(state), charset);
    try {
      doc = new DOMParser().parseFromString(text, isHTML(mime) ? 'text/html' : 'application/xml');
      if (!isHTML(mime) && doc.getElementsByTagName('parsererror').length) doc = null;
    } catch (e) { doc = null; }
  }
  state.document = doc;
  return doc;
}
function responseValue(xhr, state) {
  var type = xhr.responseType;
  if (type === '' || type === 'text') return textResponse(xhr, state);
  if (state.readyState !== DONE || !state.response || state.error) return null;
  if (!('value' in state)) {
    switch (type) {
      case 'json':
        try {
          state.value = state.textWhole ? JSON.parse(state.replyText) : JSON.parse(decode(received(state), 'utf-8'));
        } catch (e) { state.value = null; }
        break;
      case 'arraybuffer': var bytes = received(state); state.value = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength); break;
      case 'blob':
        state.value = new Blob([received(state)], { type: quirks.xhrBlobEssence ? finalMime(state).essence : serializeMime(finalMime(state)) });
        break;
      case 'document': state.value = documentResponse(xhr, state); break;
      default: state.value = null;
    }
  }
  return state.value;
}
// The response's header values for `name`, combined (the standard's "get").
function headerValue(state, name) {
  if (!state.response || state.error) return null;
  var lower = name.toLowerCase();
  var values = state.response.headers.filter(function (p) { return p[0].toLowerCase() === lower; }).map(function (p) { return p[1]; });
  return values.length ? values.join(', ') : null;
}

function fire(target, type, loaded, total) {
  var event = loaded === undefined ? new Event(type)
    : new ProgressEvent(type, { lengthComputable: total > 0, loaded: loaded, total: total > 0 ? total : 0 });
  target.dispatchEvent(event);
}
function fireUpload(xhr, state, type, loaded, total) {
  fire(xhr.upload, type, loaded, total);
  var list = uploadListeners.get(xhr.upload);
  if (list && list.some(function (k) { return k.once && k.type === type; })) {
    uploadListeners.set(xhr.upload, list.filter(function (k) { return !(k.once && k.type === type); }));
  }
}
function readyStateChange(xhr, state, value) {
  state.readyState = value;
  fire(xhr, 'readystatechange');
}
// The standard's "request error steps": `type` is error, abort or timeout.
function requestError(xhr, state, type) {
  if (type === 'abort' && quirks.urlAfterAbort && state.response && !state.error) state.keptURL = state.response.url.replace(/#.*$/, '');
  state.readyState = DONE;
  state.send = false;
  state.error = true;
  stopTimer(state);
  fire(xhr, 'readystatechange');
  if (!state.uploadComplete) {
    state.uploadComplete = true;
    if (state.uploadListener) {
      fireUpload(xhr, state, type, 0, 0);
      fireUpload(xhr, state, 'loadend', 0, 0);
    }
  }
  fire(xhr, type, 0, 0);
  fire(xhr, 'loadend', 0, 0);
}
function stopTimer(state) {
  if (state.timer) clearTimeout(state.timer);
  state.timer = null;
}
// A timeout counts from send(), and may be set or changed while the request runs.
function armTimer(xhr, state) {
  stopTimer(state);
  var timeout = state.timeout;
  if (!state.send || !(timeout > 0)) return;
  var generation = state.generation;
  state.timer = setTimeout(function () {
    if (!state.send || state.generation !== generation) return;
    state.controller.abort();
    requestError(xhr, state, 'timeout');
  }, Math.max(0, state.sentAt + timeout - Date.now()));
}
var timeoutProperty = Object.getOwnPropertyDescriptor(XHR, 'timeout');
if (timeoutProperty && timeoutProperty.set) {
  Object.defineProperty(XHR, 'timeout', { configurable: true, enumerable: timeoutProperty.enumerable,
    get: timeoutProperty.get,
    set: function (value) {
      timeoutProperty.set.call(this, value);
      var state = states.get(this);
      if (!state || (state.send && quirks.timeoutAtSend)) return;
      state.timeout = timeoutProperty.get.call(this);
      if (state.send) armTimer(this, state);
    } });
}
var responseTypeProperty = Object.getOwnPropertyDescriptor(XHR, 'responseType');
if (responseTypeProperty && responseTypeProperty.set) {
  Object.defineProperty(XHR, 'responseType', { configurable: true, enumerable: responseTypeProperty.enumerable,
    get: responseTypeProperty.get,
    set: function (value) {
      var state = states.get(this);
      if (state && (state.readyState === LOADING || state.readyState === DONE)) {
        throw invalidState('responseType cannot be set once the response is loading or done');
      }
      responseTypeProperty.set.call(this, value);
    } });
}

XHR.open = function open(method, url) {
  var previous = states.get(this);
  var target = arguments.length > 1 ? proxiedURL(url) : null;
  if (previous) {
    // open() ends the previous request silently.
    previous.generation++;
    if (previous.controller) previous.controller.abort();
    stopTimer(previous);
    previous.send = false;
    if (!target) { states.delete(this); unshadow(this); }
  }
  if (!target) return nativeXHR.open.apply(this, arguments);
  if (arguments.length > 2 && !arguments[2]) {
    throw new DOMException('HybridKit: a synchronous XMLHttpRequest to ' + target.href +
      ' cannot go through the request proxy; make it asynchronous', 'NotSupportedError');
  }
  var normalized = String(method);
  if (!TOKEN.test(normalized)) throw new DOMException("'" + normalized + "' is not a valid HTTP method.", 'SyntaxError');
  if (/^(connect|trace|track)$/i.test(normalized)) throw new DOMException("'" + normalized + "' HTTP method is unsupported.", 'SecurityError');
  if (/^(delete|get|head|options|post|put)$/i.test(normalized)) normalized = normalized.toUpperCase();
  var state = previous || { readyState: UNSENT, generation: 0, override: null };
  state.method = normalized;
  state.url = target.href;
  state.headers = [];
  state.send = false;
  state.uploadListener = false;
  state.uploadComplete = false;
  state.error = true;
  state.response = null;
  state.keptURL = null;
  state.chunks = [];
  state.receivedLength = 0;
  state.bytes = null;
  state.replyText = undefined;
  state.textWhole = false;
  state.decoding = null;
  delete state.value;
  delete state.document;
  state.timeout = timeoutProperty && timeoutProperty.get ? timeoutProperty.get.call(this) : this.timeout;
  if (!previous) {
    states.set(this, state);
    shadow(this, state);
  }
  if (state.readyState !== OPENED) readyStateChange(this, state, OPENED);
};

XHR.setRequestHeader = function setRequestHeader(name, value) {
  var state = states.get(this);
  if (!state) return nativeXHR.setRequestHeader.apply(this, arguments);
  if (state.readyState !== OPENED || state.send) throw invalidState('setRequestHeader before open() or after send()');
  name = String(name);
  value = trimHTTP(value);
  if (!TOKEN.test(name)) throw new DOMException("'" + name + "' is not a valid HTTP header field name.", 'SyntaxError');
  if (/[\0\r\n]/.test(value)) throw new DOMException("'" + value + "' is not a valid HTTP header field value.", 'SyntaxError');
  var lower = name.toLowerCase();
  // The engines ignore what a page may not set (the Fetch standard's forbidden names).
  if (FORBIDDEN.indexOf(lower) >= 0 || /^(proxy|sec)-/.test(lower)) return;
  var existing = state.headers.filter(function (p) { return p[0].toLowerCase() === lower; })[0];
  if (existing) existing[1] += ', ' + value; else state.headers.push([name, value]);
};

XHR.overrideMimeType = function overrideMimeType(mime) {
  var state = states.get(this);
  if (!state) return nativeXHR.overrideMimeType.apply(this, arguments);
  if (state.readyState === LOADING || state.readyState === DONE) throw invalidState('overrideMimeType after the response started');
  state.override = parseMime(String(mime)) || parseMime('application/octet-stream');
};

XHR.getResponseHeader = function getResponseHeader(name) {
  var state = states.get(this);
  if (!state) return nativeXHR.getResponseHeader.apply(this, arguments);
  return headerValue(state, String(name));
};

// Lower-case names, sorted, values of one name combined in order (the standard's "sort and combine").
XHR.getAllResponseHeaders = function getAllResponseHeaders() {
  var state = states.get(this);
  if (!state) return nativeXHR.getAllResponseHeaders.apply(this, arguments);
  if (!state.response || state.error) return '';
  var names = [], values = {};
  state.response.headers.forEach(function (p) {
    var name = p[0].toLowerCase();
    if (!(name in values)) { names.push(name); values[name] = []; }
    values[name].push(p[1]);
  });
  names.sort(function (a, b) { return a < b ? -1 : a > b ? 1 : 0; });
  return names.map(function (name) { return name + ': ' + values[name].join(', ') + '\r\n'; }).join('');
};

XHR.abort = function abort() {
  var state = states.get(this);
  if (!state) return nativeXHR.abort.apply(this, arguments);
  if (state.controller) state.controller.abort();
  if ((state.readyState === OPENED && state.send) || state.readyState === HEADERS_RECEIVED || state.readyState === LOADING) {
    requestError(this, state, 'abort');
  }
  if (state.readyState === DONE) {
    if (quirks.urlAfterAbort && state.response && !state.error) state.keptURL = state.response.url.replace(/#.*$/, '');
    state.readyState = UNSENT;
    state.error = true;
  }
};

XHR.send = function send(body) {
  var xhr = this;
  var state = states.get(xhr);
  if (!state) return nativeXHR.send.apply(xhr, arguments);
  if (state.readyState !== OPENED || state.send) throw invalidState('send() needs an opened, unsent request');
  if (state.method === 'GET' || state.method === 'HEAD') body = null;
  var prepared = prepareBody(body);
  var headers = state.headers.slice();
  if (prepared) {
    var typeHeader = headers.filter(function (p) { return p[0].toLowerCase() === 'content-type'; })[0];
    if (!typeHeader && prepared.type) headers.push(['Content-Type', prepared.type]);
    else if (typeHeader && prepared.kind === 'text') {
      // A text body is sent as UTF-8: a charset the page named is corrected to say so.
      var mime = parseMime(typeHeader[1]);
      var charset = mimeParam(mime, 'charset');
      if (mime && charset !== null && charset.toLowerCase() !== 'utf-8') {
        typeHeader[1] = typeHeader[1].replace(/(;\s*charset\s*=\s*)("[^"]*"|[^;]*)/i, '$1UTF-8');
      }
    }
  }
  state.uploadListener = hasUploadListeners(xhr.upload);
  state.uploadComplete = !prepared;
  state.error = false;
  state.response = null;
  state.keptURL = null;
  state.send = true;
  state.sentAt = Date.now();
  state.generation++;
  var generation = state.generation;
  var controller = state.controller = new AbortController();
  var total = prepared ? prepared.size : 0;
  var live = function () { return state.send && state.generation === generation; };
  fire(xhr, 'loadstart', 0, 0);
  if (!state.uploadComplete && state.uploadListener) fireUpload(xhr, state, 'loadstart', 0, total);
  if (!live()) return;
  armTimer(xhr, state);
  var credentials = xhr.withCredentials ? 'include' : 'same-origin';
  var length = 0;
  var finishUpload = function () {
    if (state.uploadComplete) return;
    state.uploadComplete = true;
    if (!state.uploadListener) return;
    fireUpload(xhr, state, 'progress', total, total);
    fireUpload(xhr, state, 'load', total, total);
    fireUpload(xhr, state, 'loadend', total, total);
  };
  // LOADING's readystatechange and progress, throttled as the engines do: the first at once,
  // then at most one pair per 50 ms, a deferred one at the end of the window (or at the end of
  // the body). The progress follows the readystatechange even when its handler aborted.
  var throttle = { last: 0, timer: null, deferred: false };
  var loading = function () {
    throttle.last = Date.now();
    throttle.deferred = false;
    if (state.readyState === HEADERS_RECEIVED) state.readyState = LOADING;
    fire(xhr, 'readystatechange');
    fire(xhr, 'progress', state.receivedLength, length);
  };
  var chunk = function (bytes) {
    if (!live() || !bytes.length) return;
    state.chunks.push(bytes);
    state.receivedLength += bytes.length;
    var wait = 50 - (Date.now() - throttle.last);
    if (state.readyState === HEADERS_RECEIVED || (wait <= 0 && !throttle.timer)) { loading(); return; }
    throttle.deferred = true;
    if (!throttle.timer) {
      throttle.timer = setTimeout(function () {
        throttle.timer = null;
        if (live() && throttle.deferred) loading();
      }, Math.max(wait, 0));
    }
  };
  (prepared && !prepared.streams ? prepared.read() : Promise.resolve(null)).then(function (bytes) {
    if (!live()) return;
    transmit({ url: state.url, method: state.method, headers: headers, body: bytes && bytes.byteLength ? bytes : null,
      source: prepared && prepared.streams ? prepared.source : null,
      timeout: state.timeout || null, mode: 'cors', credentials: credentials,
      referrer: document.URL, preflight: state.uploadListener && !!prepared }, {
      upload: !state.uploadListener ? null : function (loaded, sent) {
        if (!live() || state.uploadComplete) return;
        fireUpload(xhr, state, 'progress', loaded, sent);
      },
      head: function (head) {
        if (!live()) return;
        finishUpload();
        if (!live()) return;
        state.response = head;
        var contentLength = Number(headerValue(state, 'content-length'));
        length = isFinite(contentLength) && contentLength > 0 ? contentLength : 0;
        readyStateChange(xhr, state, HEADERS_RECEIVED);
      },
      chunk: chunk,
      end: function (reply) {
        if (!live()) return;
        if (typeof reply.text === 'string' && state.chunks.length === 0) { state.replyText = reply.text; state.textWhole = true; }
        chunk(replyBytes(reply));
        if (!live()) return;
        stopTimer(state);
        if (throttle.timer) { clearTimeout(throttle.timer); throttle.timer = null; }
        // The standard's "handle response end-of-body"; a pending progress goes first, as the
        // engines flush it (WebKit with readyState already DONE).
        if (throttle.deferred) {
          fire(xhr, 'readystatechange');
          if (!live()) return;
          state.readyState = DONE;
          fire(xhr, 'progress', state.receivedLength, length);
          if (!live()) return;
        }
        state.readyState = DONE;
        state.send = false;
        fire(xhr, 'readystatechange');
        fire(xhr, 'load', state.receivedLength, length);
        fire(xhr, 'loadend', state.receivedLength, length);
      },
      fail: function (error) {
        if (!live()) return;
        if (error && error.code) state.errorCode = error.code;
        try { console.warn('HybridKit proxy: ' + state.method + ' ' + state.url + ' failed: ' + (error && error.message)); } catch (e) { /* ignore */ }
        requestError(xhr, state, error && error.code === 'timeout' ? 'timeout' : 'error');
      }
    }, controller.signal);
  }, function (error) {
    if (!live()) return;
    requestError(xhr, state, 'error');
  });
};
