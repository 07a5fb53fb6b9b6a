// hybrid-transport.js, the only code that touches the message handler: the hello handshake, an
// issued nonce, relaying in both directions, and (with hybrid.js in the same document) a call
// from the page to a fake native side and back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makePage, resource, settle, FakeCustomEvent } from './harness.mjs';

const PLACEHOLDER = '__HYBRIDKIT_TRANSPORT_CONFIG__';

/** The transport as BridgeTransportScript.source(handlerName:replies:issuedNonce:) makes it. */
function transport(page, config) {
  const source = resource('hybrid-transport.js');
  assert.equal(source.split(PLACEHOLDER).length, 2, 'one placeholder for the container to fill in');
  page.run(source.replace(PLACEHOLDER, JSON.stringify(config)), 'hybrid-transport.js');
}

function send(page, text) { page.document.dispatchEvent(new FakeCustomEvent('hybridkit:send', { detail: text })); }

function received(page) {
  const texts = [];
  page.document.addEventListener('hybridkit:recv', (event) => texts.push(event.detail));
  return texts;
}

test('without its handler, or in an iframe, the transport does nothing', () => {
  const none = makePage({ handlers: [] });
  transport(none, { handler: 'hybrid', replies: true, issued: false });
  assert.equal(none.window.__hybridkitTransport, undefined);
  const frame = makePage({ handlers: ['hybrid'], top: false });
  transport(frame, { handler: 'hybrid', replies: true, issued: false });
  assert.equal(frame.window.__hybridkitTransport, undefined);
  assert.deepEqual(frame.posted.hybrid, []);
});

test('with replies it asks native for its nonce and tells the page ready with the one the answer carries', async () => {
  let answer;
  const crypto = { calls: 0, getRandomValues(array) { this.calls++; return array; } };
  const page = makePage({ handlers: ['hybrid'], replies: () => new Promise((resolve) => { answer = resolve; }), globals: { crypto } });
  const texts = received(page);
  transport(page, { handler: 'hybrid', replies: true, issued: false });
  assert.deepEqual(JSON.parse(page.posted.hybrid[0]), { t: 'hello', v: 1 }, 'no nonce of its own');
  assert.equal(crypto.calls, 0, 'no crypto in this world');
  answer(JSON.stringify({ t: 'hello', ok: true, nonce: 'issued-1', value: { version: '1' } }));
  await settle();
  assert.deepEqual(JSON.parse(texts[0]), { t: 'ready', nonce: 'issued-1', info: { version: '1' } });
  // A runtime that starts later asks again.
  page.document.dispatchEvent(new FakeCustomEvent('hybridkit:hello'));
  assert.equal(texts.length, 2);
  assert.equal(texts[1], texts[0]);
});

test('an acknowledgement without a nonce leaves the page waiting, and nothing is relayed', async () => {
  const page = makePage({ handlers: ['hybrid'], replies: (text) => Promise.resolve(text.startsWith('{"t":"hello"') ? '{"t":"hello","ok":true,"value":{}}' : 'echo') });
  const texts = received(page);
  transport(page, { handler: 'hybrid', replies: true, issued: false });
  await settle();
  send(page, 'call');
  await settle();
  assert.deepEqual(texts, []);
  assert.equal(page.posted.hybrid.length, 1, 'only the hello');
});

test('without replies it announces a 48-digit nonce of its own, and a restored document announces it again', () => {
  const page = makePage({ handlers: ['hybrid'] });
  const texts = received(page);
  transport(page, { handler: 'hybrid', replies: false, issued: false });
  const hello = JSON.parse(page.posted.hybrid[0]);
  assert.equal(hello.t, 'hello');
  assert.match(hello.nonce, /^[0-9a-f]{48}$/);
  page.window.__hybridkitTransport.deliver('other', ['{"t":"hello","ok":true,"value":{}}']);
  assert.deepEqual(texts, [], 'an acknowledgement for another nonce is not for this document');
  page.window.__hybridkitTransport.deliver(hello.nonce, [`{"t":"hello","ok":true,"nonce":"${hello.nonce}","value":{}}`]);
  assert.equal(JSON.parse(texts[0]).nonce, hello.nonce);
  page.window.dispatchEvent(Object.assign(new (page.globals.Event)('pagehide'), { persisted: true }));
  page.window.dispatchEvent(Object.assign(new (page.globals.Event)('pageshow'), { persisted: true }));
  assert.deepEqual(page.posted.hybrid.map((text) => JSON.parse(text).nonce), [hello.nonce, hello.nonce]);
});

test('with replies a document restored from the page cache asks for a new nonce', async () => {
  let issued = 0;
  const page = makePage({ handlers: ['hybrid'], replies: (text) => Promise.resolve(text.startsWith('{"t":"hello"')
    ? JSON.stringify({ t: 'hello', ok: true, nonce: `n${++issued}`, value: {} }) : `echo:${text}`) });
  const texts = received(page);
  transport(page, { handler: 'hybrid', replies: true, issued: false });
  await settle();
  page.window.dispatchEvent(Object.assign(new (page.globals.Event)('pagehide'), { persisted: true }));
  send(page, 'lost');
  page.window.dispatchEvent(Object.assign(new (page.globals.Event)('pageshow'), { persisted: true }));
  await settle();
  assert.deepEqual(texts.map((text) => JSON.parse(text).nonce), ['n1', 'n2']);
  assert.deepEqual(page.posted.hybrid, ['{"t":"hello","v":1}', '{"t":"hello","v":1}'], 'nothing relayed between');
});

test('sends are relayed only once there is a nonce, and replies go back; an empty reply is dropped', async () => {
  const page = makePage({ handlers: ['hybrid'], replies: (text) => Promise.resolve(text.startsWith('{"t":"hello"') ? '{"t":"hello","ok":true,"nonce":"n","value":{}}' : text === 'quiet' ? '' : `echo:${text}`) });
  const texts = received(page);
  transport(page, { handler: 'hybrid', replies: true, issued: false });
  send(page, 'early');
  await settle();
  send(page, 'first');
  await settle();
  send(page, 'quiet');
  await settle();
  assert.deepEqual(page.posted.hybrid.slice(1), ['first', 'quiet']);
  assert.deepEqual(texts.slice(1), ['echo:first'], 'the empty answer is nothing to deliver');
});

test('a refused postMessage becomes a failed reply for the call it carried', async () => {
  const page = makePage({ handlers: ['hybrid'], replies: (text) => text.startsWith('{"t":"hello"') ? Promise.resolve('{"t":"hello","ok":true,"nonce":"n","value":{}}') : Promise.reject(new Error('handler gone')) });
  const texts = received(page);
  transport(page, { handler: 'hybrid', replies: true, issued: false });
  await settle();
  page.window.__hybridkitTransport.deliver('wrong', ['x']);
  send(page, '{"v":1,"id":77,"module":"m"}');
  await settle();
  assert.deepEqual(JSON.parse(texts.at(-1)), { t: 'reply', id: 77, ok: false, error: { code: 'internal', message: 'handler gone' } });
});

test('with an issued nonce: set once, taken early when it came first, deliver checks it', () => {
  const page = makePage({ handlers: ['hybrid'] });
  const texts = received(page);
  page.window.__hybridkitIssued = { nonce: 'early', info: { a: 1 } };
  transport(page, { handler: 'hybrid', replies: false, issued: true });
  assert.equal(page.window.__hybridkitIssued, undefined);
  assert.deepEqual(page.posted.hybrid, [], 'no hello when the container issues the nonce');
  assert.deepEqual(JSON.parse(texts[0]), { t: 'ready', nonce: 'early', info: { a: 1 } });
  page.window.__hybridkitTransport.setNonce('second', {});
  page.window.__hybridkitTransport.deliver('second', ['ignored']);
  page.window.__hybridkitTransport.deliver('early', ['one', '', 'two']);
  assert.deepEqual(texts.slice(1), ['one', 'two']);
  send(page, 'call');
  assert.deepEqual(page.posted.hybrid, ['call'], 'without replies the answer comes by deliver');
  // Into the page cache and back: a new nonce is needed.
  page.window.dispatchEvent(Object.assign(new (page.globals.Event)('pagehide'), { persisted: true }));
  send(page, 'lost');
  assert.deepEqual(page.posted.hybrid, ['call']);
  page.window.__hybridkitTransport.setNonce('third', {});
  assert.equal(JSON.parse(texts.at(-1)).nonce, 'third');
});

test('with replies the answer to a hello asked before the page cache is not the restored document\'s', async () => {
  const answers = [];
  const page = makePage({ handlers: ['hybrid'], replies: () => new Promise((resolve) => { answers.push(resolve); }) });
  const texts = received(page);
  transport(page, { handler: 'hybrid', replies: true, issued: false });
  page.window.dispatchEvent(Object.assign(new (page.globals.Event)('pagehide'), { persisted: true }));
  page.window.dispatchEvent(Object.assign(new (page.globals.Event)('pageshow'), { persisted: true }));
  answers[0](JSON.stringify({ t: 'hello', ok: true, nonce: 'before', value: {} }));
  await settle();
  assert.deepEqual(texts, [], 'the first hello belonged to the document before the page cache');
  answers[1](JSON.stringify({ t: 'hello', ok: true, nonce: 'after', value: {} }));
  await settle();
  assert.deepEqual(texts.map((text) => JSON.parse(text).nonce), ['after']);
  send(page, 'call');
  assert.deepEqual(page.posted.hybrid.slice(2), ['call']);
});

test('the detail of a relayed event is cleared once dispatched, and one event is reused', () => {
  const page = makePage({ handlers: ['hybrid'] });
  const events = [];
  page.document.addEventListener('hybridkit:recv', (event) => events.push(event));
  transport(page, { handler: 'hybrid', replies: false, issued: true });
  page.window.__hybridkitTransport.setNonce('n', {});
  page.window.__hybridkitTransport.deliver('n', ['a', 'b']);
  assert.equal(events.length, 3);
  assert.equal(events[0], events[1]);
  assert.equal(events[2].detail, null);
});

test('a call from the page crosses the transport to native and its reply comes back', async () => {
  // The fake native side: acknowledges the hello, answers device.info, refuses anything else.
  const native = (text) => {
    const message = JSON.parse(text);
    if (message.t === 'hello') return Promise.resolve(JSON.stringify({ t: 'hello', ok: true, nonce: 'issued', value: { version: '2.0.0', modules: ['device'] } }));
    if (message.module === 'device') return Promise.resolve(JSON.stringify({ t: 'reply', id: message.id, ok: true, value: { platform: 'linux' } }));
    return Promise.resolve(JSON.stringify({ t: 'reply', id: message.id, ok: false, error: { code: 'unknown_module', message: message.module } }));
  };
  const page = makePage({ handlers: ['hybrid'], replies: native });
  transport(page, { handler: 'hybrid', replies: true, issued: false });
  page.window.__hybridkitBoot = { transport: 'event' };
  page.inject('hybrid.js');
  const hybrid = page.window.hybrid;
  const info = hybrid.call('device', 'info');
  await hybrid.ready;
  assert.equal(hybrid.version, '2.0.0');
  assert.deepEqual(await info, { platform: 'linux' });
  await assert.rejects(hybrid.call('nope', 'x'), { code: 'unknown_module' });
  assert.ok(page.posted.hybrid.slice(1).every((text) => JSON.parse(text).nonce === 'issued'));
});
