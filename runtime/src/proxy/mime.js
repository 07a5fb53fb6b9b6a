// ---- MIME types (the MIME Sniffing standard's parse/serialize, Fetch's extract) -------
var TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
var HTTP_WS = /[\t\n\r ]/;
function trimHTTP(text) { return String(text).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, ''); }
function parseMime(input) {
  input = trimHTTP(input);
  var slash = input.indexOf('/');
  if (slash < 0) return null;
  var type = input.slice(0, slash);
  var rest = input.slice(slash + 1);
  var semi = rest.indexOf(';');
  var subtype = (semi < 0 ? rest : rest.slice(0, semi)).replace(/[\t\n\r ]+$/, '');
  if (!TOKEN.test(type) || !TOKEN.test(subtype)) return null;
  var mime = { essence: type.toLowerCase() + '/' + subtype.toLowerCase(), params: [] };
  var at = semi < 0 ? rest.length : semi;
  while (at < rest.length) {
    at++;
    while (at < rest.length && HTTP_WS.test(rest[at])) at++;
    var start = at;
    while (at < rest.length && rest[at] !== ';' && rest[at] !== '=') at++;
    var name = rest.slice(start, at).toLowerCase();
    if (at < rest.length) {
      if (rest[at] === ';') continue;
      at++;
    }
    if (at >= rest.length) break;
    var value = '';
    if (rest[at] === '"') {
      at++;
      while (at < rest.length) {
        var ch = rest[at];
        if (ch === '\\') {
          at++;
          if (at >= rest.length) { value += '\\'; break; }
          value += rest[at++];
        } else if (ch === '"') { at++; break; } else { value += ch; at++; }
      }
      while (at < rest.length && rest[at] !== ';') at++;
    } else {
      start = at;
      while (at < rest.length && rest[at] !== ';') at++;
      value = rest.slice(start, at).replace(/[\t\n\r ]+$/, '');
      if (!value) continue;
    }
    if (name && TOKEN.test(name) && /^[\t\u0020-\u007E\u0080-\u00FF]*$/.test(value) &&
        !mime.params.some(function (p) { return p[0] === name; })) {
      mime.params.push([name, value]);
    }
  }
  return mime;
}
function serializeMime(mime) {
  var text = mime.essence;
  mime.params.forEach(function (p) {
    var value = p[1];
    if (!value || !TOKEN.test(value)) value = '"' + value.replace(/(["\\])/g, '\\$1') + '"';
    text += ';' + p[0] + '=' + value;
  });
  return text;
}
function mimeParam(mime, name) {
  var found = mime && mime.params.filter(function (p) { return p[0] === name; })[0];
  return found ? found[1] : null;
}
// Splits a header value on commas outside quoted strings (Fetch's "get, decode, and split").
function splitValues(value) {
  var values = [], current = '', quoted = false;
  for (var i = 0; i < value.length; i++) {
    var ch = value[i];
    if (quoted && ch === '\\' && i + 1 < value.length) { current += ch + value[++i]; continue; }
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) { values.push(trimHTTP(current)); current = ''; continue; }
    current += ch;
  }
  values.push(trimHTTP(current));
  return values;
}
// Fetch's "extract a MIME type" from a combined Content-Type value; null on failure.
function extractMime(value) {
  if (value === null || value === undefined) return null;
  var charset = null, essence = null, mime = null;
  splitValues(value).forEach(function (item) {
    var parsed = parseMime(item);
    if (!parsed || parsed.essence === '*/*') return;
    mime = parsed;
    if (mime.essence !== essence) {
      charset = mimeParam(mime, 'charset');
      essence = mime.essence;
    } else if (mimeParam(mime, 'charset') === null && charset !== null) {
      mime.params.push(['charset', charset]);
    }
  });
  return mime;
}
function isXML(mime) { return mime.essence === 'text/xml' || mime.essence === 'application/xml' || /\+xml$/.test(mime.essence); }
function isHTML(mime) { return mime.essence === 'text/html'; }
function decoderFor(label) {
  if (!label) return null;
  try { return new TextDecoder(label); } catch (e) { return null; }
}
// The encoding a byte order mark at the start of `bytes` names, or null.
function bomEncoding(bytes) {
  if (bytes.length >= 3 && bytes[0] === 0xEF && bytes[1] === 0xBB && bytes[2] === 0xBF) return 'utf-8';
  if (bytes.length >= 2 && bytes[0] === 0xFE && bytes[1] === 0xFF) return 'utf-16be';
  if (bytes.length >= 2 && bytes[0] === 0xFF && bytes[1] === 0xFE) return 'utf-16le';
  return null;
}
// The Encoding standard's decode: a byte order mark wins over the label.
function decode(bytes, label) {
  return (decoderFor(bomEncoding(bytes) || label) || new TextDecoder()).decode(bytes);
}
