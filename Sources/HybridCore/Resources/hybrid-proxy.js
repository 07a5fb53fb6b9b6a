// HybridKit request proxy: the page side.
//
// Injected at document start (main frame, page world) before the runtime, with its policy in
// `window.__hybridkitProxy`. Requests whose URL the policy names leave the engine and go over
// the bridge (`hybrid.call('proxy', 'request', …)`) to native URLSession with the app's cookie
// jar; every other request is untouched. Hooks: XMLHttpRequest (async only: a synchronous
// open throws NotSupportedError at once rather than hang), fetch (every body kind, through
// the engine's own Request/Response body extraction, so FormData boundaries, Blob types and
// URLSearchParams encodings are the engine's), and form POST submissions (the response is
// loaded natively as the new document). Bodies cross as base64.
(function () {
  'use strict';
  var config = window.__hybridkitProxy;
  try { delete window.__hybridkitProxy; } catch (e) { /* ignore */ }
  if (!config || window.__hybridkitProxyActive) return;

  // ---- URL patterns: the semantics of ConfigURLPattern --------------------------------------
  function escapeRE(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }
  var defaultPorts = { http: 80, https: 443, ws: 80, wss: 443 };
  function compile(text) {
    if (text === '*') return function () { return true; };
    var sep = text.indexOf('://');
    if (sep < 0) return function () { return false; };
    var scheme = text.slice(0, sep).toLowerCase();
    var rest = text.slice(sep + 3);
    var slash = rest.indexOf('/');
    var authority = (slash < 0 ? rest : rest.slice(0, slash)).toLowerCase();
    var path = slash < 0 ? '/*' : rest.slice(slash);
    var port = null;
    var colon = authority.lastIndexOf(':');
    if (colon >= 0 && authority.charAt(authority.length - 1) !== ']') {
      var portText = authority.slice(colon + 1);
      port = portText === '*' ? null : Number(portText);
      authority = authority.slice(0, colon);
    }
    if (authority.slice(-1) === '.') authority = authority.slice(0, -1);
    var pathRE = new RegExp('^' + path.split('*').map(escapeRE).join('[\\s\\S]*') + '$');
    return function (url) {
      var urlScheme = url.protocol.slice(0, -1).toLowerCase();
      if (scheme !== '*' && scheme !== urlScheme) return false;
      var host = url.hostname.toLowerCase();
      if (host.slice(-1) === '.') host = host.slice(0, -1);
      if (authority.indexOf('*.') === 0) {
        var domain = authority.slice(2);
        if (host !== domain && host.slice(-(domain.length + 1)) !== '.' + domain) return false;
      } else if (authority !== '*' && host !== authority) {
        return false;
      }
      if (port !== null && (url.port ? Number(url.port) : defaultPorts[urlScheme]) !== port) return false;
      return pathRE.test(url.pathname || '/');
    };
  }
  var pages = (config.pages || []).map(compile);
  var requests = (config.requests || []).map(compile);
  try {
    var here = new URL(location.href);
    if (pages.length && !pages.some(function (m) { return m(here); })) return;
  } catch (e) { return; }
  Object.defineProperty(window, '__hybridkitProxyActive', { value: true });

  function proxiedURL(url) {
    try {
      var parsed = new URL(url, document.baseURI);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
      return requests.some(function (m) { return m(parsed); }) ? parsed : null;
    } catch (e) { return null; }
  }

  // ---- bodies ----------------------------------------------------------------------------
  function toBase64(buffer) {
    var bytes = new Uint8Array(buffer);
    if (typeof bytes.toBase64 === 'function') return bytes.toBase64();
    var parts = [];
    for (var i = 0; i < bytes.length; i += 0x8000) {
      parts.push(String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000)));
    }
    return btoa(parts.join(''));
  }
  function fromBase64(text) {
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(text);
    var binary = atob(text);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }
  // FormData as a multipart Blob, encoded here: WebKit cannot read a FormData body that holds
  // files back out of a Request/Response ("Unable to read form data blob"), but it can read a
  // Blob made of those same files.
  function escapeName(name) { return String(name).replace(/\r\n?|\n/g, '\r\n').replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22'); }
  function multipartBody(form) {
    // Lower case: a Blob's type is lower-cased, and the boundary must match the body exactly.
    var boundary = '----hybridkitformboundary' + Math.random().toString(36).slice(2) + Date.now().toString(36);
    var parts = [];
    form.forEach(function (value, name) {
      var head = '--' + boundary + '\r\nContent-Disposition: form-data; name="' + escapeName(name) + '"';
      if (typeof value === 'string') {
        parts.push(head + '\r\n\r\n' + value.replace(/\r\n?|\n/g, '\r\n') + '\r\n');
      } else {
        parts.push(head + '; filename="' + escapeName(value.name === undefined ? 'blob' : value.name) + '"\r\nContent-Type: ' +
          (value.type || 'application/octet-stream') + '\r\n\r\n', value, '\r\n');
      }
    });
    parts.push('--' + boundary + '--\r\n');
    return new Blob(parts, { type: 'multipart/form-data; boundary=' + boundary });
  }
  // Any XHR/fetch body as bytes plus the Content-Type the engine would send with it.
  function extractBody(body) {
    if (body === null || body === undefined) return Promise.resolve(null);
    if (body instanceof FormData) body = multipartBody(body);
    if (typeof Document !== 'undefined' && body instanceof Document) {
      body = new Blob([new XMLSerializer().serializeToString(body)],
        { type: body instanceof HTMLDocument ? 'text/html;charset=UTF-8' : 'application/xml;charset=UTF-8' });
    }
    var wrapper = new Response(body);
    var type = wrapper.headers.get('content-type');
    return wrapper.arrayBuffer().then(function (buffer) { return { buffer: buffer, type: type }; });
  }
  function charsetOf(type) {
    var match = /charset\s*=\s*"?([^";\s]+)/i.exec(type || '');
    return match ? match[1] : 'utf-8';
  }
  function decodeText(bytes, type) {
    try { return new TextDecoder(charsetOf(type)).decode(bytes); } catch (e) { return new TextDecoder().decode(bytes); }
  }

  function failure(code, message) {
    var error = new Error(message);
    error.code = code;
    return error;
  }

  // Sends one request over the bridge (not named `send`: XHR.send's own name would shadow it). `request.body` is an ArrayBuffer or null.
  function transmit(request, options) {
    var body = request.body;
    if (body && body.byteLength > config.maxBodyBytes) {
      return Promise.reject(failure('payload_too_large', 'request body of ' + body.byteLength +
        ' bytes exceeds the proxy limit of ' + config.maxBodyBytes + ' bytes'));
    }
    if (!window.hybrid) return Promise.reject(failure('unavailable', 'the HybridKit bridge is not available'));
    var params = { url: request.url, method: request.method, headers: request.headers,
      body: body && body.byteLength ? toBase64(body) : null, timeout: request.timeout || null,
      redirect: request.redirect || 'follow' };
    var budget = Math.min((request.timeout || config.timeout) + 2000, 600000);
    return window.hybrid.call('proxy', options.action || 'request', params,
      { onProgress: options.onProgress, signal: options.signal, timeout: budget });
  }

  function headerPairs(headers) {
    var pairs = [];
    headers.forEach(function (value, name) { pairs.push([name, value]); });
    return pairs;
  }

  // ---- fetch -----------------------------------------------------------------------------
  var nativeFetch = window.fetch;
  var nullBodyStatus = [101, 103, 204, 205, 304];
  function makeResponse(reply) {
    var headers = new Headers();
    reply.headers.forEach(function (pair) { try { headers.append(pair[0], pair[1]); } catch (e) { /* skip */ } });
    var body = nullBodyStatus.indexOf(reply.status) >= 0 ? null : typeof reply.text === 'string' ? reply.text : fromBase64(reply.body);
    var response = new Response(body, { status: reply.status, statusText: reply.statusText, headers: headers });
    Object.defineProperty(response, 'url', { value: reply.url });
    Object.defineProperty(response, 'redirected', { value: reply.redirected });
    return response;
  }
  function abortError(signal) {
    return signal && signal.reason !== undefined ? signal.reason : new DOMException('The operation was aborted.', 'AbortError');
  }
  window.fetch = function fetch(input, init) {
    var request;
    try {
      if (init && init.body instanceof FormData) init = Object.assign({}, init, { body: multipartBody(init.body) });
      request = new Request(input, init);
    } catch (e) { return Promise.reject(e); }
    var url = proxiedURL(request.url);
    if (!url) return nativeFetch.apply(this, arguments);
    var signal = request.signal;
    if (signal && signal.aborted) return Promise.reject(abortError(signal));
    return request.arrayBuffer().then(function (buffer) {
      return transmit({ url: url.href, method: request.method, headers: headerPairs(request.headers),
        body: buffer.byteLength ? buffer : null, redirect: request.redirect }, { signal: signal });
    }).then(makeResponse, function (error) {
      if (signal && signal.aborted) throw abortError(signal);
      var typeError = new TypeError('Load failed: ' + (error && error.code ? error.code + ': ' : '') +
        (error && error.message || error));
      if (error && error.code) typeError.code = error.code;
      throw typeError;
    });
  };

  // ---- XMLHttpRequest ----------------------------------------------------------------------
  var XHR = XMLHttpRequest.prototype;
  var nativeXHR = { open: XHR.open, send: XHR.send, setRequestHeader: XHR.setRequestHeader, abort: XHR.abort,
    getResponseHeader: XHR.getResponseHeader, getAllResponseHeaders: XHR.getAllResponseHeaders,
    overrideMimeType: XHR.overrideMimeType };
  var states = new WeakMap();
  var shadowed = ['readyState', 'status', 'statusText', 'response', 'responseText', 'responseURL', 'responseXML'];

  function invalidState(message) { return new DOMException(message, 'InvalidStateError'); }

  function shadow(xhr, state) {
    shadowed.forEach(function (name) {
      Object.defineProperty(xhr, name, { configurable: true, enumerable: true, get: function () { return read(xhr, state, name); } });
    });
  }
  function unshadow(xhr) { shadowed.forEach(function (name) { delete xhr[name]; }); }

  function read(xhr, state, name) {
    switch (name) {
      case 'readyState': return state.readyState;
      case 'status': return state.reply ? state.reply.status : 0;
      case 'statusText': return state.reply ? state.reply.statusText : '';
      case 'responseURL': return state.reply ? state.reply.url : '';
      case 'responseText':
        if (xhr.responseType !== '' && xhr.responseType !== 'text') {
          throw invalidState("responseText is only available if responseType is '' or 'text'");
        }
        return state.readyState === 4 && state.hasBody ? text(state) : '';
      case 'responseXML':
        if (state.readyState !== 4 || !state.hasBody) return null;
        return documentOf(state);
      case 'response':
        return response(xhr, state);
    }
  }
  // The reply's bytes, made on first use (a text reply needs none for responseText/json).
  function bytesOf(state) {
    if (!state.bytes) {
      var reply = state.reply;
      state.bytes = typeof reply.text === 'string' ? new TextEncoder().encode(reply.text) : fromBase64(reply.body);
    }
    return state.bytes;
  }
  function contentType(state) { return headerValue(state, 'content-type') || ''; }
  function text(state) {
    if (state.text === undefined) state.text = decodeText(bytesOf(state), state.mime || contentType(state));
    return state.text;
  }
  function documentOf(state) {
    try {
      var type = (state.mime || contentType(state)).split(';')[0].trim() || 'text/xml';
      return new DOMParser().parseFromString(text(state), /html/.test(type) ? 'text/html' : 'application/xml');
    } catch (e) { return null; }
  }
  function response(xhr, state) {
    var type = xhr.responseType;
    if (type === '' || type === 'text') return state.readyState >= 3 && state.hasBody ? text(state) : '';
    if (state.readyState !== 4 || !state.hasBody || state.failed) return null;
    if (!('value' in state)) {
      switch (type) {
        case 'json': try { state.value = JSON.parse(text(state)); } catch (e) { state.value = null; } break;
        case 'arraybuffer': state.value = bytesOf(state).buffer; break;
        case 'blob': state.value = new Blob([bytesOf(state)], { type: state.mime || contentType(state) }); break;
        case 'document': state.value = documentOf(state); break;
        default: state.value = null;
      }
    }
    return state.value;
  }
  function headerValue(state, name) {
    if (!state.reply || state.readyState < 2) return null;
    var lower = name.toLowerCase();
    var values = state.reply.headers.filter(function (p) { return p[0] === lower; }).map(function (p) { return p[1]; });
    return values.length ? values.join(', ') : null;
  }

  function fire(target, type, loaded, total) {
    var event = loaded === undefined ? new Event(type)
      : new ProgressEvent(type, { lengthComputable: total > 0, loaded: loaded, total: total > 0 ? total : 0 });
    target.dispatchEvent(event);
  }
  function setReadyState(xhr, state, value) {
    state.readyState = value;
    fire(xhr, 'readystatechange');
  }
  // Ends a request that did not succeed: `type` is error, abort or timeout.
  function end(xhr, state, type) {
    var wasSending = state.sending;
    state.sending = false;
    state.failed = true;
    state.reply = null;
    state.bytes = null;
    state.hasBody = false;
    state.text = undefined;
    if (state.timer) clearTimeout(state.timer);
    setReadyState(xhr, state, 4);
    if (wasSending && state.uploading) {
      state.uploading = false;
      fire(xhr.upload, type, 0, 0);
      fire(xhr.upload, 'loadend', 0, 0);
    }
    fire(xhr, type, 0, 0);
    fire(xhr, 'loadend', 0, 0);
  }

  XHR.open = function open(method, url) {
    var previous = states.get(this);
    if (previous) {
      if (previous.controller) previous.controller.abort();
      if (previous.timer) clearTimeout(previous.timer);
      states.delete(this);
      unshadow(this);
    }
    var target = proxiedURL(url);
    if (!target) return nativeXHR.open.apply(this, arguments);
    if (arguments.length > 2 && !arguments[2]) {
      throw new DOMException('HybridKit: a synchronous XMLHttpRequest to ' + target.href +
        ' cannot go through the request proxy; make it asynchronous', 'NotSupportedError');
    }
    var state = { method: String(method).toUpperCase(), url: target.href, headers: [], readyState: 0,
      sending: false, uploading: false, failed: false, reply: null, bytes: null, mime: null };
    states.set(this, state);
    shadow(this, state);
    setReadyState(this, state, 1);
  };

  XHR.setRequestHeader = function setRequestHeader(name, value) {
    var state = states.get(this);
    if (!state) return nativeXHR.setRequestHeader.apply(this, arguments);
    if (state.readyState !== 1 || state.sending) throw invalidState('setRequestHeader before open() or after send()');
    var lower = String(name).toLowerCase();
    var existing = state.headers.filter(function (p) { return p[0].toLowerCase() === lower; })[0];
    if (existing) existing[1] += ', ' + value; else state.headers.push([String(name), String(value)]);
  };

  XHR.overrideMimeType = function overrideMimeType(mime) {
    var state = states.get(this);
    if (!state) return nativeXHR.overrideMimeType.apply(this, arguments);
    state.mime = String(mime);
  };

  XHR.getResponseHeader = function getResponseHeader(name) {
    var state = states.get(this);
    if (!state) return nativeXHR.getResponseHeader.apply(this, arguments);
    return headerValue(state, String(name));
  };

  XHR.getAllResponseHeaders = function getAllResponseHeaders() {
    var state = states.get(this);
    if (!state) return nativeXHR.getAllResponseHeaders.apply(this, arguments);
    if (!state.reply || state.readyState < 2) return '';
    return state.reply.headers.map(function (p) { return p[0] + ': ' + p[1] + '\r\n'; }).join('');
  };

  XHR.abort = function abort() {
    var state = states.get(this);
    if (!state) return nativeXHR.abort.apply(this, arguments);
    if (state.sending) {
      state.controller.abort();
      end(this, state, 'abort');
    }
    if (state.readyState === 4) state.readyState = 0;
  };

  XHR.send = function send(body) {
    var xhr = this;
    var state = states.get(xhr);
    if (!state) return nativeXHR.send.apply(xhr, arguments);
    if (state.readyState !== 1 || state.sending) throw invalidState('send() needs an opened, unsent request');
    if (state.method === 'GET' || state.method === 'HEAD') body = null;
    state.sending = true;
    state.controller = new AbortController();
    var controller = state.controller;
    var timeout = xhr.timeout;
    fire(xhr, 'loadstart', 0, 0);
    extractBody(body).then(function (extracted) {
      if (controller.signal.aborted) return;
      var buffer = extracted && extracted.buffer.byteLength ? extracted.buffer : null;
      var headers = state.headers.slice();
      var hasType = headers.some(function (p) { return p[0].toLowerCase() === 'content-type'; });
      if (buffer && extracted.type && !hasType) headers.push(['Content-Type', extracted.type]);
      state.uploading = !!buffer;
      var total = buffer ? buffer.byteLength : 0;
      if (state.uploading) fire(xhr.upload, 'loadstart', 0, total);
      if (timeout > 0) {
        state.timer = setTimeout(function () {
          if (!state.sending) return;
          controller.abort();
          end(xhr, state, 'timeout');
        }, timeout);
      }
      function finishUpload() {
        if (!state.uploading) return;
        state.uploading = false;
        fire(xhr.upload, 'progress', total, total);
        fire(xhr.upload, 'load', total, total);
        fire(xhr.upload, 'loadend', total, total);
      }
      return transmit({ url: state.url, method: state.method, headers: headers, body: buffer, timeout: timeout || null },
        { signal: controller.signal, onProgress: function (p) {
          if (!state.sending) return;
          if (p.phase === 'upload' && state.uploading) fire(xhr.upload, 'progress', p.loaded, p.total);
          if (p.phase === 'download') { finishUpload(); fire(xhr, 'progress', p.loaded, p.total); }
        } }).then(function (reply) {
        if (!state.sending || controller.signal.aborted) return;
        if (state.timer) clearTimeout(state.timer);
        finishUpload();
        state.sending = false;
        state.reply = reply;
        state.hasBody = true;
        // A UTF-8 text reply arrives as text: no base64 either way, no decoding here.
        if (typeof reply.text === 'string' && !state.mime) state.text = reply.text;
        var length = reply.size;
        setReadyState(xhr, state, 2);
        setReadyState(xhr, state, 3);
        fire(xhr, 'progress', length, length);
        setReadyState(xhr, state, 4);
        fire(xhr, 'load', length, length);
        fire(xhr, 'loadend', length, length);
      });
    }).catch(function (error) {
      if (!state.sending || controller.signal.aborted) return;
      if (error && error.code) state.errorCode = error.code;
      try { console.warn('HybridKit proxy: ' + state.method + ' ' + state.url + ' failed: ' + (error && error.message)); } catch (e) { /* ignore */ }
      end(xhr, state, error && error.code === 'timeout' ? 'timeout' : 'error');
    });
  };

  // ---- form POST -------------------------------------------------------------------------
  function formBody(form, submitter) {
    var data = submitter ? new FormData(form, submitter) : new FormData(form);
    var enctype = ((submitter && submitter.getAttribute('formenctype')) || form.enctype || '').toLowerCase();
    if (enctype === 'multipart/form-data') return data;
    if (enctype === 'text/plain') {
      var lines = '';
      data.forEach(function (value, name) { lines += name + '=' + (typeof value === 'string' ? value : value.name) + '\r\n'; });
      return new Blob([lines], { type: 'text/plain;charset=UTF-8' });
    }
    var params = new URLSearchParams();
    data.forEach(function (value, name) { params.append(name, typeof value === 'string' ? value : value.name); });
    return params;
  }
  function submitForm(form, submitter) {
    var method = ((submitter && submitter.getAttribute('formmethod')) || form.getAttribute('method') || 'get').toLowerCase();
    var target = (submitter && submitter.getAttribute('formtarget')) || form.getAttribute('target') || '';
    if (method !== 'post' || (target && target !== '_self')) return false;
    var url = proxiedURL((submitter && submitter.hasAttribute('formaction')) ? submitter.formAction : form.action);
    if (!url) return false;
    var body = formBody(form, submitter);
    extractBody(body).then(function (extracted) {
      return transmit({ url: url.href, method: 'POST', headers: extracted.type ? [['Content-Type', extracted.type]] : [],
        body: extracted.buffer.byteLength ? extracted.buffer : null }, { action: 'submit' });
    }).catch(function (error) {
      try { console.warn('HybridKit proxy: form POST to ' + url.href + ' failed: ' + (error && error.message)); } catch (e) { /* ignore */ }
    });
    return true;
  }
  if (config.forms) {
    // Bubbling on window: the page's own submit handlers run first and may cancel.
    window.addEventListener('submit', function (event) {
      if (event.defaultPrevented || !(event.target instanceof HTMLFormElement)) return;
      if (submitForm(event.target, event.submitter || null)) event.preventDefault();
    });
    var nativeSubmit = HTMLFormElement.prototype.submit;
    HTMLFormElement.prototype.submit = function submit() {
      if (!submitForm(this, null)) nativeSubmit.call(this);
    };
  }
})();
