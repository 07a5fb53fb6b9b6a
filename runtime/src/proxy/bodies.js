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
