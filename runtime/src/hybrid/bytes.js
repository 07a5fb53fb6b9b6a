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

function mayCarryBytes(text) {
  var at = text.indexOf('"value":');
  if (at < 0) at = text.indexOf('"payload":') + 2;
  if (at < 2) return false;
  var first = text.charCodeAt(at + 8);
  return (first === 123 || first === 91) &&  // '{' or '['
    (text.indexOf('"$bytes"', at) >= 0 ||
     (byteChannel !== null && (text.indexOf('"$blob"', at) >= 0 || text.indexOf('"$feed"', at) >= 0)));
}
