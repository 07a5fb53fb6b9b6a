// ---- bytes -----------------------------------------------------------------------------
// @include ../shared/base64.js
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
