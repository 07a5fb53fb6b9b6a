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
