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
