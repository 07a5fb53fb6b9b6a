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
