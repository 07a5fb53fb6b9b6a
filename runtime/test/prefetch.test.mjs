// hybrid-prefetch.js: what the container pushes into the document (`__hybridkitPrefetchEarly`:
// deliver, has, take once) and the page's fetch answered from a prefetch rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makePage, settle } from './harness.mjs';

function prefetch(rules, options = {}) {
  const network = [];
  const page = makePage({ href: 'https://app.example/shop.html?id=a%20b&x=1#top', fetch: (input, init) => {
    network.push([String(input instanceof Request ? input.url : input), init]);
    return Promise.resolve(new Response('network'));
  }, ...options });
  page.network = network;
  page.inject('hybrid-prefetch.js', `window.__hybridkitPrefetch = ${JSON.stringify(rules)};\n`);
  return page;
}

const rule = { key: 'item', url: 'https://api.example/item?id={query.id}&missing={query.nope}', withCookies: false };

test('without rules it installs nothing and still takes its settings away', () => {
  const page = prefetch([]);
  assert.equal(page.window.__hybridkitPrefetch, undefined);
  assert.equal(page.window.__hybridkitPrefetchEarly, undefined);
});

test('a pushed reply is taken once, for this document only, with the credentials asked for', () => {
  const page = prefetch([rule]);
  const early = page.window.__hybridkitPrefetchEarly;
  assert.equal(Object.isFrozen(early), true);
  assert.equal(early.deliver('https://app.example/other.html', 'item', false, { status: 200 }), false, 'another page');
  assert.equal(early.deliver('https://app.example/shop.html?id=a%20b&x=1', 'item', true, { status: 200 }), true);
  assert.equal(early.deliver('https://app.example/shop.html?id=a%20b&x=1', 'item', false, { status: 500 }), false, 'once per key');
  assert.equal(early.has('item'), true);
  assert.equal(early.take('item', false), null, 'made with cookies, asked without');
  assert.equal(early.has('item'), true, 'a refused take keeps it');
  assert.deepEqual(early.take('item'), { status: 200 });
  assert.equal(early.take('item'), null);
  assert.equal(early.has('item'), false);
});

test('the page fetch of a rule URL is answered by hybrid.prefetched, once', async () => {
  const page = prefetch([rule]);
  const asked = [];
  page.window.hybrid = { prefetched: (key, options) => { asked.push([key, options]); return Promise.resolve(new Response('prefetched')); } };
  const url = 'https://api.example/item?id=a%20b&missing=';
  assert.equal(await (await page.window.fetch(url)).text(), 'prefetched');
  assert.deepEqual(asked, [['item', { withCookies: false }]]);
  assert.equal(await (await page.window.fetch(url)).text(), 'network', 'a second fetch goes to the network');
  assert.equal(page.network.length, 1);
});

test('a fetch with other credentials, another method or another URL goes to the network', async () => {
  const page = prefetch([rule, { key: 'mine', url: 'https://app.example/me', withCookies: true }]);
  page.window.hybrid = { prefetched: () => assert.fail('not a prefetch') };
  const url = 'https://api.example/item?id=a%20b&missing=';
  await page.window.fetch(url, { credentials: 'include' });
  await page.window.fetch(url, { method: 'POST', body: 'x' });
  await page.window.fetch('https://api.example/item?id=other&missing=');
  await page.window.fetch('https://app.example/me', { credentials: 'omit' });
  assert.equal(page.network.length, 4);
});

test('a same-origin default fetch sends cookies, so it matches a rule made with them', async () => {
  const page = prefetch([{ key: 'mine', url: 'https://app.example/me', withCookies: true }]);
  page.window.hybrid = { prefetched: (key, options) => Promise.resolve(new Response(key + ':' + options.withCookies)) };
  assert.equal(await (await page.window.fetch('https://app.example/me')).text(), 'mine:true');
});

test('no prefetch there (null), or a failure, falls back to the network', async () => {
  const page = prefetch([rule, { ...rule, key: 'b', url: 'https://api.example/b' }]);
  page.window.hybrid = { prefetched: (key) => (key === 'item' ? Promise.resolve(null) : Promise.reject(new Error('x'))) };
  assert.equal(await (await page.window.fetch('https://api.example/item?id=a%20b&missing=')).text(), 'network');
  assert.equal(await (await page.window.fetch('https://api.example/b')).text(), 'network');
});

test('a template that makes no http(s) URL never matches', async () => {
  const page = prefetch([{ key: 'f', url: 'file:///etc/{query.x}' }]);
  page.window.hybrid = { prefetched: () => assert.fail('not a prefetch') };
  await page.window.fetch('file:///etc/1');
  assert.equal(page.network.length, 1);
});

test('an abort rejects the prefetched fetch with the signal reason', async () => {
  const page = prefetch([rule]);
  let release;
  page.window.hybrid = { prefetched: () => new Promise((resolve) => { release = resolve; }) };
  const controller = new AbortController();
  const p = page.window.fetch('https://api.example/item?id=a%20b&missing=', { signal: controller.signal });
  await settle();
  controller.abort(new Error('left'));
  release(new Response('late'));
  await assert.rejects(p, { message: 'left' });
});

test('a pushed stale kept reply is read (not taken) with its age, for this document only; a pushed one has its age', () => {
  const page = prefetch([rule]);
  const early = page.window.__hybridkitPrefetchEarly;
  const here = 'https://app.example/shop.html?id=a%20b&x=1';
  assert.equal(early.deliverKept('https://app.example/other.html', 'item', false, { status: 200 }, 5), false, 'another page');
  assert.equal(early.kept('item'), null);
  assert.equal(early.deliverKept(here, 'item', false, { status: 200, text: 'kept' }, 5), true);
  assert.equal(early.deliverKept(here, 'item', false, { status: 200, text: 'other' }, 1), false, 'once per key');
  assert.equal(early.kept('item', true), null, 'kept without cookies, asked with');
  const kept = early.kept('item');
  assert.equal(kept.reply.text, 'kept');
  assert.ok(kept.age >= 5 && kept.age < 6, 'its age when pushed, grown since');
  assert.equal(early.kept('item').reply.text, 'kept', 'read again: a kept reply is not taken');
  assert.equal(early.has('item'), false, 'the kept reply is not the response to take');
  assert.equal(early.deliver(here, 'item', false, { status: 200, text: 'fresh' }, 0.25), true);
  const fresh = early.takeAged('item');
  assert.equal(fresh.reply.text, 'fresh');
  assert.ok(fresh.age >= 0.25 && fresh.age < 1.25);
  assert.equal(early.takeAged('item'), null, 'taken once');
});
