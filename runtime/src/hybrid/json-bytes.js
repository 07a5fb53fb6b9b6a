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
