// hybrid-proxy.js: URL patterns, which requests leave the engine, what crosses the bridge for
// them (method, header pairs, body as base64 or streamed by slices), and how the answer becomes
// the page's Response or XMLHttpRequest state; the MIME helpers on their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makePage, loadModules, settle, Target, FakeEvent } from './harness.mjs';

// ---- the page's side of the bridge ---------------------------------------------------------
function fakeBridge() {
  const bridge = {
    calls: [],
    call(module, action, params, options = {}) {
      return new Promise((resolve, reject) => { bridge.calls.push({ module, action, params, options, resolve, reject }); });
    },
  };
  return bridge;
}

class ProgressEvent extends FakeEvent {}
class FakeXHR extends Target {
  constructor() { super(); this.upload = new Target(); this.responseType = ''; this.withCredentials = false; this.timeout = 0; this.native = []; }
}
for (const name of ['open', 'send', 'setRequestHeader', 'abort', 'getResponseHeader', 'getAllResponseHeaders', 'overrideMimeType']) {
  FakeXHR.prototype[name] = function (...args) { this.native.push([name, ...args]); };
}

const policy = { requests: ['https://api.example/*'], pages: [], maxBodyBytes: 1 << 20, timeout: 30000, streamsBodies: true };

function proxy(config = policy, options = {}) {
  const network = [];
  const XHR = class extends FakeXHR {};
  const page = makePage({
    fetch(...args) { network.push(args); return Promise.resolve(new Response('from the engine')); },
    XMLHttpRequest: XHR, globals: { ProgressEvent }, ...options,
  });
  page.network = network;
  page.bridge = fakeBridge();
  page.window.hybrid = page.bridge;
  page.inject('hybrid-proxy.js', `window.__hybridkitProxy = ${JSON.stringify(config)};\n`);
  page.XHR = XHR;
  return page;
}

const bodyText = (params) => (params.body === null ? null : Buffer.from(params.body, 'base64').toString());

// ---- URL patterns ------------------------------------------------------------------------
test('URL patterns: scheme, host with *. subdomains, port, path with * — the semantics of ConfigURLPattern', () => {
  const { compile } = loadModules(['proxy/patterns.js'], ['compile']);
  const matches = (pattern, url) => compile(pattern)(new URL(url));
  assert.equal(matches('*', 'ftp://anything/at/all'), true);
  assert.equal(matches('https://api.example/*', 'https://api.example/v1/x?q'), true);
  assert.equal(matches('https://api.example/*', 'http://api.example/v1'), false);
  assert.equal(matches('https://api.example', 'https://API.example./deep/path'), true, 'no path is every path; case and a final dot do not matter');
  assert.equal(matches('*://api.example/*', 'http://api.example/'), true);
  assert.equal(matches('https://*.example.com/*', 'https://a.b.example.com/'), true);
  assert.equal(matches('https://*.example.com/*', 'https://example.com/'), true);
  assert.equal(matches('https://*.example.com/*', 'https://badexample.com/'), false);
  assert.equal(matches('https://api.example:8443/*', 'https://api.example:8443/'), true);
  assert.equal(matches('https://api.example:443/*', 'https://api.example/'), true, 'the default port');
  assert.equal(matches('https://api.example:8443/*', 'https://api.example/'), false);
  assert.equal(matches('https://api.example/*', 'https://api.example:9/'), true, 'no port is any port');
  assert.equal(matches('https://api.example/v1/*', 'https://api.example/v10'), false);
  assert.equal(matches('https://api.example/v1/*.json', 'https://api.example/v1/a/b.json'), true);
  assert.equal(matches('https://api.example/a.b', 'https://api.example/aXb'), false, 'only * is special');
  assert.equal(matches('http://[::1]/*', 'http://[::1]:8080/x'), true);
  assert.equal(matches('not a pattern', 'https://api.example/'), false);
});

test('on a page the policy does not name, the proxy stays out', () => {
  const page = proxy({ ...policy, pages: ['https://other.example/*'] });
  assert.equal(page.window.__hybridkitProxyActive, undefined);
  assert.equal(page.window.__hybridkitProxy, undefined, 'its settings are taken away all the same');
  assert.equal(page.XHR.prototype.open, FakeXHR.prototype.open);
});

// ---- fetch -------------------------------------------------------------------------------
test('a request the policy does not name goes to the engine as it was made', async () => {
  const page = proxy();
  const init = { method: 'POST', body: 'x' };
  assert.equal(await (await page.window.fetch('https://elsewhere.example/', init)).text(), 'from the engine');
  assert.equal(page.network.length, 1);
  assert.equal(page.network[0][1], init);
  assert.equal(page.bridge.calls.length, 0);
});

test("routing whenNeeded: a named request leaves the engine only when the engine would lose something", async () => {
  const needed = { ...policy, routing: 'whenNeeded', cookies: false, headerRules: ['https://api.example/secure/*'], trusted: ['https://api.example'] };
  const proxied = async (page, url) => {
    const before = page.bridge.calls.length;
    page.window.fetch(url);
    await settle();
    return page.bridge.calls.length > before;
  };
  // A page of the API's own origin: nothing is missing for a plain request.
  const same = proxy(needed, { href: 'https://api.example/index.html' });
  assert.equal(await proxied(same, 'https://api.example/plain'), false, 'the engine carries it');
  assert.equal(same.network.length, 1);
  assert.equal(await proxied(same, 'https://api.example/secure/x'), true, "a header rule's token");
  // Another origin reaching a trusted host needs the proxy's missing CORS check.
  assert.equal(await proxied(proxy(needed), 'https://api.example/plain'), true, 'trusted host, cross-origin');
  assert.equal(await proxied(proxy({ ...needed, trusted: [] }), 'https://api.example/plain'), false, 'cross-origin with CORS: the engine');
  // Cookies only the app's jar holds, and a custom-scheme page's origin.
  assert.equal(await proxied(proxy({ ...needed, cookies: true }, { href: 'https://api.example/' }), 'https://api.example/plain'), true);
  assert.equal(await proxied(proxy(needed, { href: 'app://pkg/index.html' }), 'https://api.example/plain'), true);
  // A synchronous XHR the engine carries is the engine's, not refused.
  const sync = new same.XHR();
  sync.open('GET', 'https://api.example/plain', false);
  assert.deepEqual(sync.native, [['open', 'GET', 'https://api.example/plain', false]]);
  // A keepalive request must outlive its document: the engine's, whatever it needs.
  const keep = proxy({ ...needed, cookies: true });
  keep.window.fetch('https://api.example/beacon', { method: 'POST', body: 'bye', keepalive: true });
  await settle();
  assert.equal(keep.bridge.calls.length, 0);
  assert.equal(keep.network.length, 1);
  // Without a routing the page script proxies every named request, as before.
  assert.equal(await proxied(proxy(policy, { href: 'https://api.example/' }), 'https://api.example/plain'), true);
});

test('a page its service worker controls keeps the engine path, even for a request that needs the proxy', async () => {
  const page = proxy({ ...policy, routing: 'always' });
  const warned = [];
  page.window.console = { ...console, warn: (...args) => warned.push(args.join(' ')) };
  page.window.navigator.serviceWorker = { controller: { scriptURL: 'https://app.example/sw.js' } };
  page.window.fetch('https://api.example/x');
  page.window.fetch('https://api.example/y');
  await settle();
  assert.equal(page.bridge.calls.length, 0, 'the worker sees them first, as without the container');
  assert.equal(page.network.length, 2);
  page.window.navigator.serviceWorker.controller = null;
  page.window.fetch('https://api.example/z');
  await settle();
  assert.equal(page.bridge.calls.length, 1, 'without a controller the proxy carries it again');
});

test('a proxied GET crosses with its header pairs; the head resolves fetch, chunks feed the body', async () => {
  const page = proxy();
  const p = page.window.fetch('https://api.example/items?x=1', { headers: { 'X-Trace': 'a', Accept: 'application/json' } });
  await settle();
  const [call] = page.bridge.calls;
  assert.deepEqual([call.module, call.action], ['proxy', 'request']);
  assert.equal(call.params.url, 'https://api.example/items?x=1');
  assert.equal(call.params.method, 'GET');
  assert.deepEqual(call.params.headers, [['accept', 'application/json'], ['x-trace', 'a']]);
  assert.equal(call.params.body, null);
  assert.equal(call.params.credentials, 'same-origin');
  assert.equal(call.params.referrer, 'https://app.example/index.html');
  assert.equal(call.options.timeout, 32000, "the proxy's timeout and two seconds for the bridge");
  call.options.onProgress({ phase: 'head', head: { status: 200, statusText: 'OK', url: 'https://api.example/items?x=1',
    type: 'cors', redirected: true, headers: [['Content-Type', 'text/plain'], ['X-A', '1'], ['X-A', '2']] }, text: 'one,' });
  const response = await p;
  assert.equal(response.status, 200);
  assert.equal(response.type, 'cors');
  assert.equal(response.redirected, true);
  assert.equal(response.url, 'https://api.example/items?x=1');
  assert.equal(response.headers.get('x-a'), '1, 2');
  assert.throws(() => response.headers.set('x-a', '3'), TypeError, 'a network response has immutable headers');
  call.options.onProgress({ phase: 'data', chunk: new Uint8Array(Buffer.from('two,')) });
  call.resolve({ text: 'three' });
  assert.equal(await response.text(), 'one,two,three');
});

test('a string body crosses as base64 with the Content-Type the engine would give it', async () => {
  const page = proxy();
  page.window.fetch('https://api.example/echo', { method: 'POST', body: 'héllo' });
  await settle();
  const [call] = page.bridge.calls;
  assert.equal(bodyText(call.params), 'héllo');
  assert.deepEqual(call.params.headers, [['content-type', 'text/plain;charset=UTF-8']]);
  assert.equal(call.params.bodySize, null);
});

test('a body from 64 KB on streams: its size crosses, and each pull is answered with exactly those bytes', async () => {
  const page = proxy();
  const body = new Uint8Array(100 * 1024).map((_, i) => i % 251);
  page.window.fetch('https://api.example/upload', { method: 'PUT', body });
  await settle();
  const [call] = page.bridge.calls;
  assert.equal(call.params.body, null);
  assert.equal(call.params.bodySize, body.length);
  call.options.onProgress({ phase: 'pull', pull: { id: 'u1', seq: 0, offset: 1000, length: 300 } });
  await settle();
  const slice = page.bridge.calls[1];
  assert.deepEqual([slice.module, slice.action, slice.params.id, slice.params.seq, slice.params.offset], ['proxy', 'slice', 'u1', 0, 1000]);
  assert.deepEqual([...slice.params.data], [...body.subarray(1000, 1300)]);
});

test('a body over the proxy limit fails in the page with payload_too_large', async () => {
  const page = proxy({ ...policy, maxBodyBytes: 10 });
  await assert.rejects(page.window.fetch('https://api.example/x', { method: 'POST', body: 'more than ten bytes' }),
    (e) => e instanceof TypeError && e.code === 'payload_too_large' && /^Load failed: payload_too_large: /.test(e.message));
  assert.equal(page.bridge.calls.length, 0);
});

test('without the bridge a proxied fetch fails with unavailable', async () => {
  const page = proxy();
  page.window.hybrid = undefined;
  await assert.rejects(page.window.fetch('https://api.example/x'), { code: 'unavailable' });
});

test('a failed bridge call rejects fetch with a TypeError carrying its code', async () => {
  const page = proxy();
  const p = page.window.fetch('https://api.example/x');
  await settle();
  page.bridge.calls[0].reject(Object.assign(new Error('refused'), { code: 'cors_denied' }));
  await assert.rejects(p, (e) => e instanceof TypeError && e.code === 'cors_denied' && e.message === 'Load failed: cors_denied: refused');
});

test('a whole reply without a head becomes the Response; a null body status has no body', async () => {
  const page = proxy();
  const p = page.window.fetch('https://api.example/whole');
  const q = page.window.fetch('https://api.example/none');
  await settle();
  page.bridge.calls[0].resolve({ status: 201, statusText: 'Created', url: 'https://api.example/whole', type: 'basic', headers: [['content-type', 'application/json']], text: '{"ok":true}' });
  page.bridge.calls[1].resolve({ status: 204, statusText: 'No Content', url: 'https://api.example/none', type: 'basic', headers: [] });
  const whole = await p;
  assert.deepEqual([whole.status, whole.statusText], [201, 'Created']);
  assert.deepEqual(await whole.json(), { ok: true });
  const none = await q;
  assert.equal(none.status, 204);
  assert.equal(await none.text(), '');
});

test('an opaque response shows nothing of itself', async () => {
  const page = proxy();
  const p = page.window.fetch('https://api.example/opaque', { mode: 'no-cors' });
  await settle();
  page.bridge.calls[0].resolve({ status: 200, statusText: 'OK', url: 'https://api.example/opaque', type: 'opaque', headers: [['x-secret', '1']], text: 'secret' });
  const response = await p;
  assert.deepEqual([response.type, response.status, response.ok, response.statusText, response.url], ['opaque', 0, false, '', '']);
  assert.equal(response.headers.has('x-secret'), false);
});

test('an abort before the head rejects with an AbortError and ends the bridge call', async () => {
  const page = proxy();
  const controller = new AbortController();
  const p = page.window.fetch('https://api.example/slow', { signal: controller.signal });
  await settle();
  controller.abort();
  await assert.rejects(p, { name: 'AbortError' });
  assert.equal(page.bridge.calls[0].options.signal.aborted, true);
  await assert.rejects(page.window.fetch('https://api.example/slow', { signal: controller.signal }), { name: 'AbortError' });
});

// ---- XMLHttpRequest ----------------------------------------------------------------------
function xhrOn(page) {
  const xhr = new page.XHR();
  xhr.events = [];
  for (const type of ['readystatechange', 'loadstart', 'progress', 'load', 'loadend', 'error', 'timeout', 'abort']) {
    xhr.addEventListener(type, () => xhr.events.push(type === 'readystatechange' ? `rs${xhr.readyState}` : type));
  }
  return xhr;
}

test('a proxied XHR: headers combined and forbidden ones dropped, the standard order of events, the response', async () => {
  const page = proxy();
  const xhr = xhrOn(page);
  xhr.open('post', 'https://api.example/form');
  assert.equal(xhr.readyState, 1);
  xhr.setRequestHeader('X-A', '1');
  xhr.setRequestHeader('x-a', ' 2 ');
  xhr.setRequestHeader('Cookie', 'stolen=1');
  xhr.setRequestHeader('Sec-Fetch-Mode', 'x');
  assert.throws(() => xhr.setRequestHeader('bad name', 'x'), { name: 'SyntaxError' });
  xhr.send('a=1');
  await settle();
  const [call] = page.bridge.calls;
  assert.equal(call.params.method, 'POST');
  assert.deepEqual(call.params.headers, [['X-A', '1, 2'], ['Content-Type', 'text/plain;charset=UTF-8']]);
  assert.equal(bodyText(call.params), 'a=1');
  call.options.onProgress({ phase: 'head', head: { status: 200, statusText: 'OK', url: 'https://api.example/form#frag', type: 'cors',
    headers: [['Content-Type', 'text/plain'], ['X-B', '2'], ['x-b', '3'], ['A-First', '0']] } });
  assert.equal(xhr.readyState, 2);
  assert.equal(xhr.getResponseHeader('X-b'), '2, 3');
  assert.equal(xhr.getAllResponseHeaders(), 'a-first: 0\r\ncontent-type: text/plain\r\nx-b: 2, 3\r\n');
  assert.equal(xhr.responseURL, 'https://api.example/form');
  call.resolve({ text: 'done' });
  await settle();
  assert.deepEqual([xhr.readyState, xhr.status, xhr.responseText], [4, 200, 'done']);
  assert.deepEqual(xhr.events, ['rs1', 'loadstart', 'rs2', 'rs3', 'progress', 'rs4', 'load', 'loadend']);
  assert.deepEqual(xhr.native, [], 'the engine never saw it');
});

test('XHR: a synchronous open, an invalid or a forbidden method throw; another URL goes to the engine', () => {
  const page = proxy();
  assert.throws(() => new page.XHR().open('GET', 'https://api.example/x', false), { name: 'NotSupportedError' });
  assert.throws(() => new page.XHR().open('GE T', 'https://api.example/x'), { name: 'SyntaxError' });
  assert.throws(() => new page.XHR().open('TRACE', 'https://api.example/x'), { name: 'SecurityError' });
  const other = new page.XHR();
  other.open('GET', 'https://elsewhere.example/');
  assert.deepEqual(other.native, [['open', 'GET', 'https://elsewhere.example/']]);
});

test('XHR: a failure with code timeout fires timeout, any other fires error', async () => {
  for (const [code, event] of [['timeout', 'timeout'], ['network_error', 'error']]) {
    const page = proxy();
    const xhr = xhrOn(page);
    xhr.open('GET', 'https://api.example/x');
    xhr.send();
    await settle();
    page.bridge.calls[0].reject(Object.assign(new Error('failed'), { code }));
    await settle();
    assert.deepEqual(xhr.events.slice(-3), ['rs4', event, 'loadend'], code);
    assert.equal(xhr.status, 0);
  }
});

test('XHR responseType json and arraybuffer read the whole body', async () => {
  const page = proxy();
  for (const [type, check] of [['json', (v) => assert.deepEqual(v, { a: [1] })], ['arraybuffer', (v) => assert.equal(Buffer.from(v).toString(), '{"a":[1]}')]]) {
    const xhr = new page.XHR();
    xhr.open('GET', 'https://api.example/data');
    xhr.responseType = type;
    xhr.send();
    await settle();
    const call = page.bridge.calls.at(-1);
    call.resolve({ status: 200, statusText: 'OK', url: 'https://api.example/data', type: 'basic', headers: [], body: Buffer.from('{"a":[1]}').toString('base64') });
    await settle();
    check(xhr.response);
  }
});

// ---- MIME --------------------------------------------------------------------------------
const mime = () => loadModules(['proxy/mime.js'], ['parseMime', 'serializeMime', 'extractMime', 'splitValues', 'decode', 'bomEncoding']);

test('parseMime and serializeMime follow the MIME Sniffing standard', () => {
  const { parseMime, serializeMime } = mime();
  assert.deepEqual(parseMime(' Text/HTML ; Charset="utf-8" ; x=1;charset=latin1'), { essence: 'text/html', params: [['charset', 'utf-8'], ['x', '1']] });
  assert.equal(parseMime('text'), null);
  assert.equal(parseMime('te xt/html'), null);
  assert.deepEqual(parseMime('a/b;q="x\\"y";empty=;novalue'), { essence: 'a/b', params: [['q', 'x"y']] });
  assert.equal(serializeMime(parseMime('a/b;q="x y";t=token')), 'a/b;q="x y";t=token');
});

test("extractMime takes Fetch's last valid type and keeps its charset across repeats", () => {
  const { extractMime, serializeMime, splitValues } = mime();
  assert.deepEqual(splitValues('a, "b, c", d'), ['a', '"b, c"', 'd']);
  assert.equal(serializeMime(extractMime('text/plain;charset=gbk, text/plain')), 'text/plain;charset=gbk');
  assert.equal(serializeMime(extractMime('text/plain;charset=gbk, text/html')), 'text/html');
  assert.equal(serializeMime(extractMime('text/html, */*')), 'text/html');
  assert.equal(extractMime(null), null);
  assert.equal(extractMime('nonsense'), null);
});

test('decode: a byte order mark wins over the label', () => {
  const { decode, bomEncoding } = mime();
  assert.equal(bomEncoding(new Uint8Array([0xEF, 0xBB, 0xBF, 0x41])), 'utf-8');
  assert.equal(bomEncoding(new Uint8Array([0xFF, 0xFE])), 'utf-16le');
  assert.equal(bomEncoding(new Uint8Array([0x41])), null);
  assert.equal(decode(new Uint8Array([0xFE, 0xFF, 0, 0x41]), 'latin1'), 'A');
  assert.equal(decode(new Uint8Array([0xE9]), 'latin1'), 'é');
  assert.equal(decode(new Uint8Array([0x41]), 'no-such-encoding'), 'A');
});
