// ---- binary ----------------------------------------------------------------------------
// Bytes travel as {"$bytes": base64}: ArrayBuffers, typed arrays, DataViews and Blobs in params
// are encoded on the way out; results carrying that form come back as Uint8Arrays. No engine
// carries bytes in script messages as bytes (EngineCapabilities.binaryMessages, measured).
// @include ../shared/base64.js
// @include ../shared/response.js

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
