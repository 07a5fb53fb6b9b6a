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
