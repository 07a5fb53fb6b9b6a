// The shared modules (runtime/src/shared), loaded on their own: base64, the settings a script
// takes from the window, the re-initialised event, Headers from the container's pairs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { loadModules, makePage, FakeCustomEvent } from './harness.mjs';

const base64 = (page) => loadModules(['shared/base64.js'], ['toBase64', 'fromBase64', 'callOf'], page);

test('toBase64 encodes exactly the bytes a view covers, from any kind of view', () => {
  const { toBase64 } = base64();
  const bytes = new Uint8Array([9, 8, 7, 0, 1, 2, 255, 254]);
  assert.equal(toBase64(bytes), Buffer.from(bytes).toString('base64'));
  assert.equal(toBase64(bytes.subarray(3, 6)), 'AAEC');
  assert.equal(toBase64(bytes.buffer), Buffer.from(bytes).toString('base64'));
  assert.equal(toBase64(new DataView(bytes.buffer, 6, 2)), '//4=');
  assert.equal(toBase64(new Uint16Array([0x0201])), 'AQI=');
  assert.equal(toBase64(new Uint8Array(0)), '');
});

test('the loop codec agrees with node across its 32 KB chunks, both ways', () => {
  const { toBase64, fromBase64 } = base64();
  for (const size of [1, 2, 3, 0x8000 - 1, 0x8000, 0x8000 + 1, 100000]) {
    const bytes = new Uint8Array(randomBytes(size));
    const text = toBase64(bytes);
    assert.equal(text, Buffer.from(bytes).toString('base64'), `size ${size}`);
    assert.deepEqual(fromBase64(text), bytes);
  }
  assert.throws(() => fromBase64('not base64!'));
});

test("the engine's own codec is used where it exists, taken when the script starts", () => {
  // A realm whose Uint8Array has toBase64/fromBase64 (WebKitGTK 2.50, Chromium 156).
  const seen = [];
  class NativeBytes extends Uint8Array {
    toBase64() { seen.push(['to', this.length]); return 'native:' + Buffer.from(this).toString('base64'); }
    static fromBase64(text) { seen.push(['from', text]); return new Uint8Array(Buffer.from(text, 'base64')); }
  }
  const page = makePage({ globals: { Uint8Array: NativeBytes } });
  const { toBase64, fromBase64 } = base64(page);
  NativeBytes.prototype.toBase64 = () => 'replaced by the page';
  assert.equal(toBase64(new Uint8Array([1, 2, 3])), 'native:AQID');
  assert.deepEqual([...fromBase64('AQID')], [1, 2, 3]);
  assert.deepEqual(seen, [['to', 3], ['from', 'AQID']]);
});

test('takeGlobal hands over a setting and removes it; a non-configurable one is read, not thrown over', () => {
  const page = makePage();
  const { takeGlobal } = loadModules(['shared/globals.js'], ['takeGlobal'], page);
  page.window.__setting = { a: 1 };
  assert.deepEqual(takeGlobal('__setting'), { a: 1 });
  assert.equal('__setting' in page.window, false);
  Object.defineProperty(page.window, '__fixed', { value: 7 });
  assert.equal(takeGlobal('__fixed'), 7);
  assert.equal(takeGlobal('__absent'), undefined);
});

test('eventSender re-initialises one event, makes a new one while it is being dispatched, and clears the detail', () => {
  const page = makePage();
  const { eventSender } = loadModules(['shared/event-sender.js'], ['eventSender'], page);
  const send = eventSender('x:msg');
  const seen = [];
  page.document.addEventListener('x:msg', (event) => {
    seen.push([event, event.detail]);
    if (event.detail === 'outer') send('inner');
  });
  send('one');
  send('outer');
  assert.deepEqual(seen.map(([, detail]) => detail), ['one', 'outer', 'inner']);
  assert.equal(seen[0][0], seen[1][0], 'the idle event is reused');
  assert.notEqual(seen[1][0], seen[2][0], 'a message sent from a listener gets its own event');
  assert.ok(seen[0][0] instanceof FakeCustomEvent);
  assert.equal(seen[0][0].detail, null);
  assert.equal(seen[2][0].detail, null);
});

test('headersFrom keeps the pairs an engine accepts, in order, combined by name', () => {
  const { headersFrom, NULL_BODY_STATUS } = loadModules(['shared/response.js'], ['headersFrom', 'NULL_BODY_STATUS']);
  const headers = headersFrom([['Content-Type', 'text/plain'], ['bad name', 'x'], ['x-a', '1'], ['X-A', '2'], ['x-b', 'line\nbreak']]);
  assert.deepEqual([...headers], [['content-type', 'text/plain'], ['x-a', '1, 2']]);
  assert.deepEqual(NULL_BODY_STATUS, [101, 103, 204, 205, 304]);
});

test('the events between runtime and transport are named once', () => {
  const names = loadModules(['shared/protocol.js'], ['SEND_EVENT', 'RECV_EVENT', 'HELLO_EVENT']);
  assert.deepEqual(names, { SEND_EVENT: 'hybridkit:send', RECV_EVENT: 'hybridkit:recv', HELLO_EVENT: 'hybridkit:hello' });
});
