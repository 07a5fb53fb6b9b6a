// hybrid.js, the page runtime: the call table, envelopes, timeouts, aborts, bytes, events and
// `prefetched`, against a fake transport (the document's hybridkit:send / hybridkit:recv events).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makePage, settle, plain } from './harness.mjs';

function runtime(boot = {}, options = {}) {
  const page = makePage(options);
  page.window.__hybridkitBoot = boot;
  page.inject('hybrid.js');
  return page;
}

/** The transport's `ready`: the container knows the document. */
function ready(page, info = { version: '1.2.3', modules: ['device'], capabilities: { engine: 'test' }, maxMessageBytes: 1 << 20 }) {
  page.toRuntime({ t: 'ready', nonce: 'n1', info });
}

const calls = (page) => page.sent.filter((m) => m.action !== undefined);

test('window.hybrid is frozen, not writable, and a second injection leaves the first', () => {
  const page = runtime({ transport: 'event' });
  const first = page.window.hybrid;
  assert.equal(Object.isFrozen(first), true);
  assert.equal(Object.getOwnPropertyDescriptor(page.window, 'hybrid').writable, false);
  assert.equal(page.window.__hybridkitBoot, undefined, 'the boot settings are taken away');
  page.inject('hybrid.js');
  assert.equal(page.window.hybrid, first);
  assert.equal(first.transport, 'event');
  assert.equal(first.runtimeVersion, '1.0.0');
  assert.deepEqual(first.modules, []);
});

test('the runtime says hello when it starts (the transport may be ready already)', () => {
  const page = runtime();
  assert.deepEqual(page.document.dispatched.filter((t) => t === 'hybridkit:hello'), ['hybridkit:hello']);
});

test('calls made before ready wait, then go in order with the nonce; ready resolves with the API', async () => {
  const page = runtime();
  const hybrid = page.window.hybrid;
  hybrid.call('device', 'info');
  hybrid.call('storage', 'get', { key: 'a' });
  assert.equal(calls(page).length, 0);
  assert.equal(hybrid.pendingCount, 2);
  ready(page);
  assert.equal(await hybrid.ready, hybrid);
  const sent = calls(page);
  assert.deepEqual(sent.map((m) => [m.module, m.action, m.nonce, m.v]), [['device', 'info', 'n1', 1], ['storage', 'get', 'n1', 1]]);
  assert.equal(sent[1].id, sent[0].id + 1);
  assert.deepEqual(sent[0].params, {});
  assert.equal(hybrid.version, '1.2.3');
  assert.deepEqual(hybrid.modules, ['device']);
  assert.equal(hybrid.capabilities.engine, 'test');
});

test('an envelope starts with v and id, so the container can answer one it cannot parse', () => {
  const page = runtime();
  ready(page);
  const texts = [];
  page.document.addEventListener('hybridkit:send', (event) => texts.push(event.detail));
  page.window.hybrid.call('m', 'a', 'x'.repeat(10));
  assert.match(texts[0], /^\{"v":1,"id":\d+,"module":"m","action":"a","params":"x{10}","nonce":"n1"\}$/);
});

test('a reply settles its own call; an unknown id or a second reply changes nothing', async () => {
  const page = runtime();
  ready(page);
  const hybrid = page.window.hybrid;
  const a = hybrid.call('m', 'a');
  const b = hybrid.call('m', 'b');
  const [ca, cb] = calls(page);
  page.toRuntime({ t: 'reply', id: cb.id, ok: true, value: 'B' });
  page.toRuntime({ t: 'reply', id: 12345, ok: true, value: 'nobody' });
  assert.equal(await b, 'B');
  assert.equal(hybrid.pendingCount, 1);
  page.toRuntime({ t: 'reply', id: ca.id, ok: true, value: { n: 1 } });
  page.toRuntime({ t: 'reply', id: ca.id, ok: true, value: 'again' });
  assert.deepEqual(await a, { n: 1 });
  assert.equal(hybrid.pendingCount, 0);
});

test('a failed reply rejects with a HybridError carrying code, message and data', async () => {
  const page = runtime();
  ready(page);
  const p = page.window.hybrid.call('m', 'a');
  page.toRuntime({ t: 'reply', id: calls(page)[0].id, ok: false, error: { code: 'queue_full', message: 'busy', data: { limit: 4 } } });
  await assert.rejects(p, (e) => e.name === 'HybridError' && e.code === 'queue_full' && e.message === 'busy' && e.data.limit === 4);
  const q = page.window.hybrid.call('m', 'b');
  page.toRuntime({ t: 'reply', id: calls(page)[1].id, ok: false });
  await assert.rejects(q, (e) => e.code === 'internal' && !('data' in e));
});

test('malformed messages are ignored', () => {
  const page = runtime();
  ready(page);
  page.window.hybrid.call('m', 'a');
  for (const text of ['', 'not json', '42', 'null', '{"t":"reply"}']) page.toRuntime(text);
  assert.equal(page.window.hybrid.pendingCount, 1);
});

test('bad arguments fail at once with bad_params, nothing sent', async () => {
  const page = runtime();
  ready(page);
  const hybrid = page.window.hybrid;
  await assert.rejects(hybrid.call('', 'a'), { code: 'bad_params' });
  await assert.rejects(hybrid.call('m'), { code: 'bad_params' });
  for (const timeout of [0, -1, Infinity, NaN, '5']) {
    await assert.rejects(hybrid.call('m', 'a', {}, { timeout }), { code: 'bad_params' }, String(timeout));
  }
  const cyclic = {};
  cyclic.self = cyclic;
  await assert.rejects(hybrid.call('m', 'a', cyclic), (e) => e.code === 'bad_params' && /JSON-serialisable/.test(e.message));
  assert.equal(calls(page).length, 0);
  assert.equal(hybrid.pendingCount, 0);
});

test('a timeout rejects the call, cancels it natively, and a late reply is dropped', async () => {
  const page = runtime();
  ready(page);
  const hybrid = page.window.hybrid;
  const p = hybrid.call('m', 'slow', {}, { timeout: 99.2 });
  const call = calls(page)[0];
  assert.equal(call.timeout, 100, 'the container gets the timeout rounded up');
  page.clock.tick(99);
  assert.equal(hybrid.pendingCount, 1);
  page.clock.tick(1);
  await assert.rejects(p, (e) => e.code === 'timeout' && e.data.timeout === 99.2);
  assert.deepEqual(page.sent.at(-1), { t: 'cancel', v: 1, id: call.id, nonce: 'n1' });
  page.toRuntime({ t: 'reply', id: call.id, ok: true, value: 'late' });
  assert.equal(hybrid.pendingCount, 0);
});

test('a settled call clears its timer', async () => {
  const page = runtime();
  ready(page);
  const p = page.window.hybrid.call('m', 'a', {}, { timeout: 1000 });
  assert.equal(page.clock.pending, 1);
  page.toRuntime({ t: 'reply', id: calls(page)[0].id, ok: true, value: 1 });
  await p;
  assert.equal(page.clock.pending, 0);
});

test('aborting fails the call with cancelled and cancels it natively; an aborted signal sends nothing', async () => {
  const page = runtime();
  ready(page);
  const hybrid = page.window.hybrid;
  const controller = new AbortController();
  const p = hybrid.call('m', 'a', {}, { signal: controller.signal });
  controller.abort();
  await assert.rejects(p, { code: 'cancelled', message: 'the call was aborted' });
  assert.equal(page.sent.at(-1).t, 'cancel');
  const before = page.sent.length;
  await assert.rejects(hybrid.call('m', 'a', {}, { signal: controller.signal }), { code: 'cancelled' });
  assert.equal(page.sent.length, before);
});

test('a message over the boot limit is refused in the page with its size', async () => {
  const page = runtime({ maxMessageBytes: 200 });
  ready(page, {});
  await assert.rejects(page.window.hybrid.call('m', 'a', 'x'.repeat(300)),
    (e) => e.code === 'payload_too_large' && e.data.limit === 200 && e.data.size > 300);
  assert.equal(calls(page).length, 0);
  page.window.hybrid.call('m', 'a', 'x'.repeat(50));
  assert.equal(calls(page).length, 1);
});

test('Blob params larger than the limit allows as base64 are refused unread', async () => {
  const page = runtime({ maxMessageBytes: 1000 });
  ready(page, {});
  let read = false;
  const blob = new Blob([new Uint8Array(900)]);
  const original = blob.arrayBuffer.bind(blob);
  blob.arrayBuffer = () => { read = true; return original(); };
  await assert.rejects(page.window.hybrid.call('m', 'a', { file: blob }), (e) => e.code === 'payload_too_large' && e.data.size === 1200);
  assert.equal(read, false);
});

test('bytes in params go as {"$bytes": base64}; $bytes in a reply come back as a Uint8Array', async () => {
  const page = runtime();
  ready(page);
  const view = new Uint8Array([0, 1, 2, 250, 251, 252, 253]).subarray(3);
  const p = page.window.hybrid.call('m', 'a', { view, buffer: new Uint8Array([104, 105]).buffer, n: 1 });
  const call = calls(page)[0];
  assert.deepEqual(call.params, { view: { $bytes: Buffer.from([250, 251, 252, 253]).toString('base64') }, buffer: { $bytes: 'aGk=' }, n: 1 });
  page.toRuntime(`{"t":"reply","id":${call.id},"ok":true,"value":{"data":{"$bytes":"AAEC/w=="},"keep":{"$bytes":"AA==","x":1}}}`);
  const value = await p;
  assert.ok(value.data instanceof Uint8Array);
  assert.deepEqual([...value.data], [0, 1, 2, 255]);
  assert.deepEqual(value.keep, { $bytes: 'AA==', x: 1 }, 'only an object of exactly $bytes is bytes');
});

test('$bytes after other "$… texts in a reply is still found; a reply with none is left as it is', async () => {
  const page = runtime();
  ready(page);
  const p = page.window.hybrid.call('m', 'a');
  const first = calls(page)[0];
  page.toRuntime(`{"t":"reply","id":${first.id},"ok":true,"value":{"price":"$5","$bytesish":1,"list":[{"$bytes":"AQ=="}]}}`);
  const value = await p;
  assert.ok(value.list[0] instanceof Uint8Array, 'the $bytes after two decoys is bytes');
  assert.deepEqual(value.$bytesish, 1);
  const q = page.window.hybrid.call('m', 'b');
  const second = calls(page)[1];
  page.toRuntime(`{"t":"reply","id":${second.id},"ok":true,"value":{"note":"costs $5","$bytes2":"AQ=="}}`);
  assert.deepEqual(await q, { note: 'costs $5', $bytes2: 'AQ==' });
});

test('a Blob param is read before the call is sent', async () => {
  const page = runtime();
  ready(page);
  const p = page.window.hybrid.call('m', 'upload', [new Blob(['hey'])]);
  assert.equal(calls(page).length, 0);
  await settle();
  assert.deepEqual(calls(page)[0].params, [{ $bytes: 'aGV5' }]);
  page.toRuntime({ t: 'reply', id: calls(page)[0].id, ok: true, value: null });
  assert.equal(await p, null);
});

test('progress reports reach onProgress in order before the call settles', async () => {
  const page = runtime();
  ready(page);
  const seen = [];
  const p = page.window.hybrid.call('m', 'a', {}, { onProgress: (v) => seen.push(v) });
  const id = calls(page)[0].id;
  page.toRuntime({ t: 'progress', id, value: 1 });
  page.toRuntime({ t: 'progress', id, value: { step: 2 } });
  page.toRuntime({ t: 'reply', id, ok: true, value: 'done' });
  page.toRuntime({ t: 'progress', id, value: 3 });
  assert.equal(await p, 'done');
  assert.deepEqual(plain(seen), [1, { step: 2 }]);
});

test('events reach their listeners; off and the returned function remove them; a throwing one does not stop the rest', () => {
  const page = runtime();
  const hybrid = page.window.hybrid;
  const seen = [];
  const a = (p) => seen.push(['a', p]);
  const remove = hybrid.on('network', a);
  hybrid.on('network', a);   // once only
  hybrid.on('network', () => { throw new Error('listener bug'); });
  hybrid.on('network', (p) => seen.push(['c', p]));
  page.toRuntime({ t: 'event', name: 'network', payload: 'wifi' });
  assert.deepEqual(seen, [['a', 'wifi'], ['c', 'wifi']]);
  page.clock.tick(0);
  assert.equal(page.clock.errors[0].message, 'listener bug', 'reported, asynchronously');
  remove();
  page.toRuntime({ t: 'event', name: 'network', payload: 'none' });
  assert.deepEqual(seen.at(-1), ['c', 'none']);
  hybrid.off('network');
  page.toRuntime({ t: 'event', name: 'network', payload: 'x' });
  assert.equal(seen.length, 3);
  assert.throws(() => hybrid.on('x', 'not a function'), TypeError);
});

test('a page restored from the page cache queues its calls until it is announced again, and resumes', async () => {
  const page = runtime();
  ready(page);
  const hybrid = page.window.hybrid;
  const resumed = [];
  hybrid.on('resume', (p) => resumed.push(plain(p)));
  page.window.dispatchEvent(Object.assign(new (page.globals.Event)('pagehide'), { persisted: true }));
  page.window.dispatchEvent(Object.assign(new (page.globals.Event)('pageshow'), { persisted: true }));
  assert.deepEqual(resumed, [{ reason: 'pageshow', persisted: true }]);
  hybrid.call('m', 'after');
  assert.equal(calls(page).length, 0);
  page.toRuntime({ t: 'ready', nonce: 'n2', info: {} });
  assert.deepEqual(calls(page).map((m) => [m.action, m.nonce]), [['after', 'n2']]);
});

test('prefetched: null where the container has no prefetch module (unknown_module)', async () => {
  const page = runtime();
  ready(page);
  const p = page.window.hybrid.prefetched('feed');
  const call = calls(page)[0];
  assert.deepEqual([call.module, call.action, call.params], ['prefetch', 'take', { key: 'feed', page: 'https://app.example/index.html' }]);
  page.toRuntime({ t: 'reply', id: call.id, ok: false, error: { code: 'unknown_module', message: 'no prefetch' } });
  assert.equal(await p, null);
});

test('prefetched: other failures reject; a non-string key is a TypeError', async () => {
  const page = runtime();
  ready(page);
  const p = page.window.hybrid.prefetched('feed', { withCookies: true });
  const call = calls(page)[0];
  assert.equal(call.params.withCookies, true);
  page.toRuntime({ t: 'reply', id: call.id, ok: false, error: { code: 'denied', message: 'no' } });
  await assert.rejects(p, { code: 'denied' });
  await assert.rejects(page.window.hybrid.prefetched(7), TypeError);
});

test('prefetched: a reply becomes the Response the page would have fetched', async () => {
  const page = runtime();
  ready(page);
  const p = page.window.hybrid.prefetched('feed');
  page.toRuntime({ t: 'reply', id: calls(page)[0].id, ok: true, value: {
    status: 201, statusText: 'Created', url: 'https://api.example/feed',
    headers: [['content-type', 'application/json'], ['x-bad header', 'skipped'], ['x-a', '1'], ['x-a', '2']], text: '{"a":1}' } });
  const response = await p;
  assert.equal(response.status, 201);
  assert.equal(response.statusText, 'Created');
  assert.equal(response.url, 'https://api.example/feed');
  assert.equal(response.headers.get('x-a'), '1, 2');
  assert.deepEqual(await response.json(), { a: 1 });
  const q = page.window.hybrid.prefetched('empty');
  page.toRuntime({ t: 'reply', id: calls(page)[1].id, ok: true, value: { status: 204, headers: [], body: 'AAAA' } });
  assert.equal((await q).body, null, 'a null body status has no body');
  const r = page.window.hybrid.prefetched('bin');
  page.toRuntime({ t: 'reply', id: calls(page)[2].id, ok: true, value: { status: 200, headers: [], body: 'AAEC' } });
  assert.deepEqual([...new Uint8Array(await (await r).arrayBuffer())], [0, 1, 2]);
});

test('prefetched: one pushed into the document is taken without a round trip', async () => {
  const page = runtime();
  let taken = null;
  page.window.__hybridkitPrefetchEarly = { take: (key, withCookies) => { taken = [key, withCookies]; return { status: 200, headers: [], text: 'early' }; } };
  const response = await page.window.hybrid.prefetched('feed');
  assert.deepEqual(taken, ['feed', undefined]);
  assert.equal(await response.text(), 'early');
  assert.equal(calls(page).length, 0);
});

test('the URL transport queues calls for the container to drain, and takes answers by deliver', async () => {
  const page = runtime({ transport: 'url', urlScheme: 'hyb' });
  const hybrid = page.window.hybrid;
  assert.equal(hybrid.transport, 'url');
  await settle();
  const queue = page.window.__hybridkitURL.drain().map((t) => JSON.parse(t));
  assert.deepEqual(queue.map((m) => [m.module, m.action, m.nonce]), [['hybrid', 'info', null]]);
  assert.deepEqual(page.window.__hybridkitURL.drain(), []);
  page.window.__hybridkitURL.deliver([JSON.stringify({ t: 'reply', id: queue[0].id, ok: true, value: { version: '9', modules: ['a'] } })]);
  await hybrid.ready;
  assert.equal(hybrid.version, '9');
  assert.equal(page.sent.length, 0, 'nothing crossed as events');
});

test('the snapshot hook answers a PNG data URL or null', async () => {
  const page = runtime();
  const hybrid = page.window.hybrid;
  assert.equal(page.window.__hybridkitSnapshot(), null);
  hybrid.onSnapshot(() => 'data:image/png;base64,AAAA');
  assert.equal(await page.window.__hybridkitSnapshot(), 'data:image/png;base64,AAAA');
  hybrid.onSnapshot(() => Promise.resolve('data:image/jpeg;base64,AAAA'));
  assert.equal(await page.window.__hybridkitSnapshot(), null);
  hybrid.onSnapshot(() => { throw new Error('x'); });
  assert.equal(await page.window.__hybridkitSnapshot(), null);
  assert.throws(() => hybrid.onSnapshot('x'), TypeError);
});

test('prefetched {stale: true}: the kept reply at once, then the network one in `fresh` (or its error)', async () => {
  const page = runtime();
  ready(page);
  const p = page.window.hybrid.prefetched('feed', { stale: true });
  const kept = calls(page)[0];
  assert.deepEqual([kept.module, kept.action, kept.params], ['prefetch', 'kept', { key: 'feed', page: 'https://app.example/index.html' }]);
  page.toRuntime({ t: 'reply', id: kept.id, ok: true, value: {
    response: { status: 200, headers: [], text: '"old"' }, age: 42.5, stale: true, refreshing: true } });
  const got = await p;
  assert.equal(got.stale, true);
  assert.equal(got.age, 42.5);
  assert.equal(await got.data.json(), 'old');
  const fresh = calls(page)[1];
  assert.equal(fresh.action, 'fresh');
  page.toRuntime({ t: 'reply', id: fresh.id, ok: true, value: { response: { status: 200, headers: [], text: '"new"' }, age: 0.01 } });
  const next = await got.fresh;
  assert.equal(next.age, 0.01);
  assert.equal(await next.data.json(), 'new');

  // A failed refresh rejects `fresh`; a fresh kept reply (no request) has nothing later.
  const q = page.window.hybrid.prefetched('feed', { stale: true });
  page.toRuntime({ t: 'reply', id: calls(page)[2].id, ok: true, value: { response: { status: 200, headers: [], text: '1' }, age: 1, stale: true, refreshing: true } });
  const failing = await q;
  page.toRuntime({ t: 'reply', id: calls(page)[3].id, ok: false, error: { code: 'request_failed', message: 'offline' } });
  await assert.rejects(failing.fresh, { code: 'request_failed' });
  const r = page.window.hybrid.prefetched('feed', { stale: true });
  page.toRuntime({ t: 'reply', id: calls(page)[4].id, ok: true, value: { response: { status: 200, headers: [], text: '2' }, age: 3, stale: false, refreshing: false } });
  const current = await r;
  assert.equal(current.stale, false);
  assert.equal(await current.fresh, null);
  assert.equal(calls(page).length, 5, 'no request for a fresh one');
});

test('prefetched {stale: true}: nothing kept gives null data and the network reply in `fresh`', async () => {
  const page = runtime();
  ready(page);
  const p = page.window.hybrid.prefetched('feed', { stale: true });
  page.toRuntime({ t: 'reply', id: calls(page)[0].id, ok: true, value: null });
  const got = await p;
  assert.deepEqual([got.data, got.age, got.stale], [null, null, false]);
  page.toRuntime({ t: 'reply', id: calls(page)[1].id, ok: true, value: { response: { status: 200, headers: [], text: '3' }, age: 0 } });
  assert.equal(await (await got.fresh).data.json(), 3);
});
