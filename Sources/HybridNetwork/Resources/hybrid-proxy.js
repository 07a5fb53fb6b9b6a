// GENERATED FILE, do not edit: scripts/build-runtime.mjs assembled it from these modules of
//   proxy/main.js, shared/globals.js, proxy/patterns.js, proxy/quirks.js, proxy/bytes.js,
//   shared/base64.js, proxy/bodies.js, proxy/mime.js, proxy/csp.js, proxy/bridge.js, proxy/fetch.js,
//   shared/response.js, proxy/xhr.js, proxy/forms.js.
// Edit them and run `make runtime` (docs/page-runtime.md).
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
  // Provides: takeGlobal(name) -> the value of window[name], deleted from the window (the
  // container's settings for a script, set just before it: no page script ever sees them).
  function takeGlobal(name) {
    var value = window[name];
    try { delete window[name]; } catch (e) { /* non-configurable: ignore */ }
    return value;
  }
  var config = takeGlobal('__hybridkitProxy');
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

  // ---- where the engines differ ----------------------------------------------------------
  // Measured against each engine's own networking (ProxyFidelityTests); the proxy does what the
  // engine it runs in does. Blink's user agent names Chrome, WebKit's (GTK and Apple) does not.
  var blink = /\bChrome\//.test(navigator.userAgent);
  var quirks = {
    // WebKit keeps responseURL after abort(); Blink clears it, as the standard says.
    urlAfterAbort: !blink,
    // An XHR blob's type: Blink gives the final MIME type's essence, WebKit the whole type.
    xhrBlobEssence: blink,
    // Response.blob() of a network response: WebKit gives the essence, Blink the whole Content-Type.
    fetchBlobEssence: !blink,
    // WebKit gives an opaque-redirect response an empty body, Blink none.
    opaqueRedirectBody: !blink,
    // WebKit's fetch and body reads reject with its own AbortError ("Fetch is aborted")
    // whatever the signal's reason; Blink's with the reason.
    abortIgnoresReason: !blink,
    // WebKit takes an XHR's timeout at send(); Blink, as the standard says, also one set later.
    timeoutAtSend: !blink,
    // Both engines fire a report-only policy's securitypolicyviolation event twice for a request
    // that is allowed, once for one an enforced policy refuses (measured, WebKitGTK 2.50 and
    // Chromium 156: each checks a request twice, the second time only when the first let it go).
    reportOnlyEvents: 2,
    // WebKit (2.50) takes fetch's cache: 'only-if-cached' as 'force-cache': a miss goes to the
    // network instead of failing; Blink fails it with a network error, as the standard says.
    onlyIfCachedUsesNetwork: !blink,
    // The TypeError a fetch the engine refused (CSP, mixed content, a network error) rejects with.
    networkErrorMessage: blink ? 'Failed to fetch' : 'Load failed',
    // Native rules (ProxyRequest.quirks): Blink decides at the first hop whether a request has
    // an Origin header, so a same-origin GET redirected to another origin has none; Blink's
    // Accept-Encoding names br and zstd too (Chromium 156 "gzip, deflate, br, zstd", loopback http
    // included), WebKitGTK 2.50's does not ("gzip, deflate").
    native: blink ? ['origin-from-first-hop', 'accept-encoding-br-zstd'] : []
  };

  // ---- bytes -----------------------------------------------------------------------------
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
  // The URLSearchParams serialiser, taken (bound) before the page's scripts run, as base64 is.
  var paramsToString = URLSearchParams.prototype.toString;
  function paramsText(params) { return callOf(paramsToString, params); }
  var utf8 = new TextEncoder();
  function concat(chunks, length) {
    if (chunks.length === 1) return chunks[0];
    var out = new Uint8Array(length);
    var offset = 0;
    chunks.forEach(function (chunk) { out.set(chunk, offset); offset += chunk.length; });
    return out;
  }
  // The body bytes a reply or a progress report carries: as text, base64 (`body` in a reply)
  // or bytes (`chunk` in a report: the bridge hands them over as a Uint8Array, through its byte
  // channel where the engine has one).
  function replyBytes(reply) {
    if (typeof reply.text === 'string') return utf8.encode(reply.text);
    if (reply.chunk) return reply.chunk instanceof Uint8Array ? reply.chunk : new Uint8Array(reply.chunk);
    return reply.body ? fromBase64(reply.body) : new Uint8Array(0);
  }

  // ---- request bodies ---------------------------------------------------------------------
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
  // Bodies above this size, and every Blob, File and FormData body, stay in the page: the
  // request declares their size and native pulls them a slice at a time (see transmit).
  var INLINE_BODY = 64 << 10;
  // Where the native side cannot stream a body (config.streamsBodies), every body goes inline.
  var STREAMS = config.streamsBodies !== false;
  // Whether a body of `size` bytes streams (`file`: a Blob/File/FormData body); an empty one is
  // no body. The one rule for fetch, XHR and forms.
  function streamsBody(size, file) { return STREAMS && size > 0 && (file || size > INLINE_BODY); }
  // A body the native side pulls by offset: its size and slice(offset, length) → the bytes, as a
  // Uint8Array, or for a Blob body as a Blob slice, unread: the bridge reads it where it must, and
  // where its byte channel is a loopback endpoint (Blink) posts it without reading it into the page.
  function bodySource(data) {
    if (data instanceof Blob) {
      return { size: data.size, blob: data, slice: function (offset, length) {
        return Promise.resolve(data.slice(offset, offset + length));
      } };
    }
    return { size: data.byteLength, slice: function (offset, length) {
      return Promise.resolve(data.subarray(offset, offset + length));
    } };
  }
  // An XHR/form body, at once: its size and the Content-Type the engine would send with it
  // (both are needed synchronously, in send(), for the upload events), and a way to read it
  // (`read`, whole) or to stream it (`source`, when `streams`).
  function prepareBody(body) {
    if (body === null || body === undefined) return null;
    var file = body instanceof FormData || body instanceof Blob;
    if (body instanceof FormData) body = multipartBody(body);
    var kind = 'other';
    if (typeof Document !== 'undefined' && body instanceof Document) {
      body = new Blob([new XMLSerializer().serializeToString(body)],
        { type: body instanceof HTMLDocument ? 'text/html;charset=UTF-8' : 'application/xml;charset=UTF-8' });
      kind = 'text';
    } else if (typeof body !== 'object' || body instanceof String) {
      body = String(body);
      kind = 'text';
    }
    var type = new Response(body).headers.get('content-type');
    var bytes = null;
    if (typeof body === 'string') bytes = utf8.encode(body);
    else if (body instanceof URLSearchParams) bytes = utf8.encode(paramsText(body));
    else if (body instanceof ArrayBuffer) bytes = new Uint8Array(body.slice(0));
    else if (ArrayBuffer.isView(body)) bytes = new Uint8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength));
    var blob = bytes ? null : (body instanceof Blob ? body : null);
    var size = bytes ? bytes.byteLength : blob ? blob.size : 0;
    var streams = !!(bytes || blob) && streamsBody(size, file);
    return {
      type: type, size: size, kind: kind, streams: streams, source: streams ? bodySource(bytes || blob) : null,
      read: function () {
        if (bytes) return Promise.resolve(bytes);
        if (blob) return blob.arrayBuffer().then(function (buffer) { return new Uint8Array(buffer); });
        return new Response(body).arrayBuffer().then(function (buffer) { return new Uint8Array(buffer); });
      }
    };
  }

  // ---- MIME types (the MIME Sniffing standard's parse/serialize, Fetch's extract) -------
  var TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
  var HTTP_WS = /[\t\n\r ]/;
  function trimHTTP(text) { return String(text).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, ''); }
  function parseMime(input) {
    input = trimHTTP(input);
    var slash = input.indexOf('/');
    if (slash < 0) return null;
    var type = input.slice(0, slash);
    var rest = input.slice(slash + 1);
    var semi = rest.indexOf(';');
    var subtype = (semi < 0 ? rest : rest.slice(0, semi)).replace(/[\t\n\r ]+$/, '');
    if (!TOKEN.test(type) || !TOKEN.test(subtype)) return null;
    var mime = { essence: type.toLowerCase() + '/' + subtype.toLowerCase(), params: [] };
    var at = semi < 0 ? rest.length : semi;
    while (at < rest.length) {
      at++;
      while (at < rest.length && HTTP_WS.test(rest[at])) at++;
      var start = at;
      while (at < rest.length && rest[at] !== ';' && rest[at] !== '=') at++;
      var name = rest.slice(start, at).toLowerCase();
      if (at < rest.length) {
        if (rest[at] === ';') continue;
        at++;
      }
      if (at >= rest.length) break;
      var value = '';
      if (rest[at] === '"') {
        at++;
        while (at < rest.length) {
          var ch = rest[at];
          if (ch === '\\') {
            at++;
            if (at >= rest.length) { value += '\\'; break; }
            value += rest[at++];
          } else if (ch === '"') { at++; break; } else { value += ch; at++; }
        }
        while (at < rest.length && rest[at] !== ';') at++;
      } else {
        start = at;
        while (at < rest.length && rest[at] !== ';') at++;
        value = rest.slice(start, at).replace(/[\t\n\r ]+$/, '');
        if (!value) continue;
      }
      if (name && TOKEN.test(name) && /^[\t\u0020-\u007E\u0080-\u00FF]*$/.test(value) &&
          !mime.params.some(function (p) { return p[0] === name; })) {
        mime.params.push([name, value]);
      }
    }
    return mime;
  }
  function serializeMime(mime) {
    var text = mime.essence;
    mime.params.forEach(function (p) {
      var value = p[1];
      if (!value || !TOKEN.test(value)) value = '"' + value.replace(/(["\\])/g, '\\$1') + '"';
      text += ';' + p[0] + '=' + value;
    });
    return text;
  }
  function mimeParam(mime, name) {
    var found = mime && mime.params.filter(function (p) { return p[0] === name; })[0];
    return found ? found[1] : null;
  }
  // Splits a header value on commas outside quoted strings (Fetch's "get, decode, and split").
  function splitValues(value) {
    var values = [], current = '', quoted = false;
    for (var i = 0; i < value.length; i++) {
      var ch = value[i];
      if (quoted && ch === '\\' && i + 1 < value.length) { current += ch + value[++i]; continue; }
      if (ch === '"') quoted = !quoted;
      if (ch === ',' && !quoted) { values.push(trimHTTP(current)); current = ''; continue; }
      current += ch;
    }
    values.push(trimHTTP(current));
    return values;
  }
  // Fetch's "extract a MIME type" from a combined Content-Type value; null on failure.
  function extractMime(value) {
    if (value === null || value === undefined) return null;
    var charset = null, essence = null, mime = null;
    splitValues(value).forEach(function (item) {
      var parsed = parseMime(item);
      if (!parsed || parsed.essence === '*/*') return;
      mime = parsed;
      if (mime.essence !== essence) {
        charset = mimeParam(mime, 'charset');
        essence = mime.essence;
      } else if (mimeParam(mime, 'charset') === null && charset !== null) {
        mime.params.push(['charset', charset]);
      }
    });
    return mime;
  }
  function isXML(mime) { return mime.essence === 'text/xml' || mime.essence === 'application/xml' || /\+xml$/.test(mime.essence); }
  function isHTML(mime) { return mime.essence === 'text/html'; }
  function decoderFor(label) {
    if (!label) return null;
    try { return new TextDecoder(label); } catch (e) { return null; }
  }
  // The encoding a byte order mark at the start of `bytes` names, or null.
  function bomEncoding(bytes) {
    if (bytes.length >= 3 && bytes[0] === 0xEF && bytes[1] === 0xBB && bytes[2] === 0xBF) return 'utf-8';
    if (bytes.length >= 2 && bytes[0] === 0xFE && bytes[1] === 0xFF) return 'utf-16be';
    if (bytes.length >= 2 && bytes[0] === 0xFF && bytes[1] === 0xFE) return 'utf-16le';
    return null;
  }
  // The Encoding standard's decode: a byte order mark wins over the label.
  function decode(bytes, label) {
    return (decoderFor(bomEncoding(bytes) || label) || new TextDecoder()).decode(bytes);
  }

  // ---- the document's Content Security Policy --------------------------------------------
  // The decision is native (ContentSecurityPolicy.swift): it has the policies of the document's
  // response headers, and this script hands it the `<meta http-equiv="Content-Security-Policy">`
  // policies as they appear (a meta policy only adds restrictions, so each is sent once and never
  // withdrawn). What comes back is reported as the engine reports it: a
  // `securitypolicyviolation` event on the document for every violation, enforced or report-only.
  var sentMeta = [];
  function flushMetaPolicies() {
    if (!window.hybrid || !document.head) return;
    var found = [];
    var metas = document.head.querySelectorAll('meta[http-equiv]');
    for (var i = 0; i < metas.length; i++) {
      var meta = metas[i];
      // CSP3 §3.3: only a meta child of head, with a content attribute, makes a policy.
      if (meta.parentNode !== document.head || String(meta.httpEquiv).toLowerCase() !== 'content-security-policy') continue;
      var content = meta.getAttribute('content');
      if (!content || sentMeta.indexOf(content) >= 0) continue;
      sentMeta.push(content);
      found.push(content);
    }
    if (found.length) window.hybrid.call('proxy', 'csp', { policies: found }).catch(function () { /* reported natively */ });
  }
  try {
    new MutationObserver(flushMetaPolicies).observe(document, { childList: true, subtree: true });
  } catch (e) { /* no observer: every request flushes */ }
  document.addEventListener('DOMContentLoaded', flushMetaPolicies);

  function reportViolation(v) {
    if (!v) return;
    var init = { bubbles: true, composed: true, cancelable: false, documentURI: document.URL,
      referrer: document.referrer, blockedURI: v.blockedURI, violatedDirective: v.violatedDirective,
      effectiveDirective: v.effectiveDirective, originalPolicy: v.originalPolicy, disposition: v.disposition,
      sourceFile: '', sample: '', statusCode: 200, lineNumber: 0, columnNumber: 0 };
    var event;
    try {
      event = new SecurityPolicyViolationEvent('securitypolicyviolation', init);
    } catch (e) {
      event = new Event('securitypolicyviolation', { bubbles: true, composed: true });
      Object.keys(init).forEach(function (name) { if (!(name in event)) event[name] = init[name]; });
    }
    document.dispatchEvent(event);
  }
  // A request the document's policy or mixed-content blocking refused, a body that failed its
  // integrity check, or an only-if-cached request with nothing stored: the engine's own network
  // error, which says nothing more.
  function isPolicyRefusal(error) {
    return !!error && (error.code === 'csp_denied' || error.code === 'mixed_content' || error.code === 'integrity_mismatch' ||
      error.code === 'not_cached');
  }

  // ---- the bridge ------------------------------------------------------------------------
  function failure(code, message) {
    var error = new Error(message);
    error.code = code;
    return error;
  }

  // Where the Referer comes from (native applies the referrer policy per hop): the document,
  // or the URL `fetch` was given; null for none.
  function referrerSource(referrer) {
    if (referrer === '') return null;
    return referrer && referrer !== 'about:client' ? referrer : document.URL;
  }

  // Answers the native side's pull for a slice of a streamed body with a `proxy.slice` call
  // carrying exactly those bytes (or why they could not be read). Nothing is answered once the
  // request is aborted; a refused answer needs no handling here, the request fails by itself.
  // A document on its way out cannot read its Blobs any more; its calls end with it (cancelled),
  // so a failed read then is not the body's fault and is not reported as one.
  var leaving = false;
  window.addEventListener('pagehide', function () { leaving = true; });
  // A document restored from the page cache streams again.
  window.addEventListener('pageshow', function () { leaving = false; });
  function answerPull(source, pull, signal) {
    if (!source || !pull) return;
    var answer = function (fields) {
      if (signal && signal.aborted || leaving) return null;
      fields.id = pull.id;
      fields.seq = pull.seq;
      fields.offset = pull.offset;
      return window.hybrid.call('proxy', 'slice', fields);
    };
    // Offered a sink (the first pull, where the byte channel takes a whole post), a Blob body is
    // posted whole and no pull is answered; if the post fails the pull is answered as any other.
    if (pull.sink && source.blob) {
      pull.sink(source.blob).catch(function () {
        if (signal && signal.aborted) return;
        answerPull(source, { id: pull.id, seq: pull.seq, offset: pull.offset, length: pull.length }, signal);
      });
      return;
    }
    // The bytes go as bytes: the bridge carries them through its byte channel where the engine
    // has one (no base64 on either side), and as base64 where it has none.
    // A slice the bridge refused (its bytes over the limit) fails the body at once, rather than
    // leaving the transfer waiting for it until the request's timeout.
    source.slice(pull.offset, pull.length).then(function (bytes) {
      return answer({ data: bytes });
    }, function (e) {
      return answer({ error: String(e && e.message || e) });
    }).catch(function (e) {
      return answer({ error: 'the slice could not be sent: ' + String(e && e.message || e) });
    }).catch(function () { /* the request reports its own failure */ });
  }

  // Reads a body feed to its end, handing each chunk to `chunk`; the promise settles when the feed
  // ends or errors (its `reader` cancels it).
  function pumpFeed(stream, chunk) {
    var reader = stream.getReader();
    var step = function () {
      return reader.read().then(function (result) {
        if (result.done) return;
        if (result.value.length) chunk(result.value);
        return step();
      });
    };
    var done = step();
    done.reader = reader;
    return done;
  }

  // The Accept-Language the engine sends for the page's languages, as Chromium writes it: the first
  // as it is, then q=0.9, 0.8, … down to 0.1 (measured: Chromium 156 "en-US,en;q=0.9"; WebKitGTK 2.50
  // sends its one language as navigator.languages gives it, "C" in the C locale).
  function acceptLanguage() {
    var languages = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
    return Array.prototype.filter.call(languages, Boolean).map(function (language, i) {
      return i === 0 ? language : language + ';q=' + (Math.max(1, 10 - i) / 10).toFixed(1);
    }).join(',') || null;
  }

  // One request over the bridge. `request.body` is a Uint8Array or null; `request.source` a
  // streamed body (bodySource), pulled by the native side as it sends. `events`:
  //   upload(loaded, total)  bytes sent
  //   head(head)             status, headers, url, type… — before any body
  //   chunk(bytes)           body bytes as they arrive
  //   end(reply)             the rest of the body (`text` or base64 `body`)
  //   fail(error)            a failure before or after the head (not an abort)
  function transmit(request, events, signal, action) {
    var body = request.body;
    var source = request.source || null;
    var size = source ? source.size : body ? body.byteLength : 0;
    if (size > config.maxBodyBytes) {
      events.fail(failure('payload_too_large', 'request body of ' + size +
        ' bytes exceeds the proxy limit of ' + config.maxBodyBytes + ' bytes'));
      return;
    }
    if (!window.hybrid) { events.fail(failure('unavailable', 'the HybridKit bridge is not available')); return; }
    var params = { url: request.url, method: request.method, headers: request.headers,
      body: !source && body && body.byteLength ? toBase64(body) : null, bodySize: source ? source.size : null,
      timeout: request.timeout || null,
      redirect: request.redirect || 'follow', mode: request.mode || 'cors',
      credentials: request.credentials || 'same-origin', referrer: request.referrer || null,
      referrerPolicy: request.referrerPolicy || null, preflight: !!request.preflight, stream: true,
      uploadProgress: !!events.upload, integrity: request.integrity || null, cache: request.cache || null,
      userAgent: navigator.userAgent, acceptLanguage: acceptLanguage(), quirks: quirks.native, feed: true, bodyBlob: !!(source && source.blob) };
    var budget = Math.min((request.timeout || config.timeout) + 2000, 600000);
    var headSeen = false;
    // A large body continues in a feed (a ReadableStream of the bridge's byte channel): read as it
    // arrives; the reply ends the body only once the feed has been read to its end.
    var pump = null;
    flushMetaPolicies();
    window.hybrid.call('proxy', action || 'request', params, { signal: signal, timeout: budget, onProgress: function (p) {
      if (!p) return;
      if (p.phase === 'pull') {
        answerPull(source, p.pull, signal);
      } else if (p.phase === 'upload') {
        if (events.upload) events.upload(p.loaded, p.total);
      } else if (p.phase === 'head') {
        headSeen = true;
        events.head(p.head);
        if (typeof p.text === 'string' || p.chunk) events.chunk(replyBytes(p));
      } else if (p.phase === 'data' && p.feed) {
        pump = pumpFeed(p.feed, events.chunk);
        // An abort (or the page cancelling the body) stops the read, whether or not the reply is in.
        if (signal) signal.addEventListener('abort', function () { pump.reader.cancel().catch(function () {}); });
      } else if (p.phase === 'data') {
        events.chunk(replyBytes(p));
      } else if (p.phase === 'violation') {
        for (var n = 0; n < quirks.reportOnlyEvents; n++) reportViolation(p.violation);
      }
    } }).then(function (reply) {
      if (!headSeen && reply && reply.status !== undefined) events.head(reply, true);
      if (!pump) { events.end(reply || {}); return; }
      pump.then(function () { events.end(reply || {}); }, function (error) {
        if (!(signal && signal.aborted)) events.fail(error);
      });
    }, function (error) {
      if (pump) pump.reader.cancel().catch(function () {});
      if (signal && signal.aborted) return;
      if (error && error.code === 'csp_denied') ((error.data && error.data.violations) || []).forEach(reportViolation);
      events.fail(error);
    });
  }

  // ---- fetch -----------------------------------------------------------------------------
  var nativeFetch = window.fetch;
  // Provides: NULL_BODY_STATUS (the statuses whose response has no body: Fetch's "null body
  // status"), headersFrom(pairs) -> Headers of the container's [name, value] pairs (a pair the
  // engine refuses is left out).
  var NULL_BODY_STATUS = [101, 103, 204, 205, 304];
  function headersFrom(pairs) {
    var headers = new Headers();
    pairs.forEach(function (pair) { try { headers.append(pair[0], pair[1]); } catch (e) { /* skip */ } });
    return headers;
  }
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
    var prepared = prepareBody(formBody(form, submitter));
    var warn = function (error) {
      try { console.warn('HybridKit proxy: form POST to ' + url.href + ' failed: ' + (error && error.message)); } catch (e) { /* ignore */ }
    };
    prepared.read().then(function (bytes) {
      transmit({ url: url.href, method: 'POST', headers: prepared.type ? [['Content-Type', prepared.type]] : [],
        body: bytes.byteLength ? bytes : null, mode: 'navigate', credentials: 'include',
        referrer: document.URL },
        { head: function () {}, chunk: function () {}, end: function () {}, fail: warn }, null, 'submit');
    }).catch(warn);
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
