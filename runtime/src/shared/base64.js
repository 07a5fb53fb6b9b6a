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
