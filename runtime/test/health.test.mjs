// hybrid-health.js: error capture (dedupe, limit, folding into `dropped`), and the page timing
// report (when it leaves, what it carries, where it is not sent).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makePage, FakeErrorEvent, FakeEvent } from './harness.mjs';

function health(options = {}, prefix = '') {
  const page = makePage({ handlers: ['hybridkitHealth'], ...options });
  page.inject('hybrid-health.js', prefix);
  page.messages = () => page.posted.hybridkitHealth.map((t) => JSON.parse(t));
  return page;
}

function throwError(page, init) {
  page.window.dispatchEvent(new FakeErrorEvent('error', { isTrusted: true, message: 'boom', filename: 'https://app.example/a.js', lineno: 3, colno: 7, ...init }));
}

test('an uncaught error is posted once with where it came from; repeats are folded into dropped', () => {
  const page = health();
  const error = new Error('boom');
  throwError(page, { error });
  throwError(page, { error });
  throwError(page, { error });
  const [first] = page.messages();
  assert.deepEqual({ ...first, stack: typeof first.stack }, { kind: 'error', type: 'error', message: 'boom', source: 'https://app.example/a.js',
    line: 3, column: 7, stack: 'string', origin: 'https://app.example' });
  assert.equal(page.messages().length, 1);
  assert.equal(page.window.__hybridkitHealthUnsent(), 2);
  page.clock.tick(999);
  assert.equal(page.messages().length, 1, 'dropped waits a second');
  page.clock.tick(1);
  assert.deepEqual(page.messages()[1], { kind: 'dropped', count: 2 });
  assert.equal(page.window.__hybridkitHealthUnsent(), 0);
});

test('errors on another line are distinct', () => {
  const page = health();
  throwError(page, { lineno: 1 });
  throwError(page, { lineno: 2 });
  assert.deepEqual(page.messages().map((m) => m.line), [1, 2]);
});

test('at most 25 distinct errors per document; the rest are counted', () => {
  const page = health();
  for (let i = 0; i < 40; i++) throwError(page, { message: `e${i}` });
  assert.equal(page.messages().length, 25);
  page.clock.tick(1000);
  assert.deepEqual(page.messages().at(-1), { kind: 'dropped', count: 15 });
});

test('a resource that failed to load, or an error event a script dispatched, is not a script error', () => {
  const page = health();
  page.window.dispatchEvent(new FakeEvent('error', { isTrusted: true }));
  throwError(page, { isTrusted: false });
  assert.deepEqual(page.messages(), []);
});

test('long texts are cut: message 1000, source 2000, stack 4000 characters', () => {
  const page = health();
  throwError(page, { message: 'm'.repeat(5000), filename: 's'.repeat(5000), error: { stack: 'x'.repeat(9000) } });
  const [m] = page.messages();
  assert.deepEqual([m.message.length, m.source.length, m.stack.length], [1000, 2000, 4000]);
});

test('an unhandled rejection is reported with its name and message, or its value', () => {
  const page = health();
  const reject = (reason) => page.window.dispatchEvent(new FakeEvent('unhandledrejection', { reason }));
  reject(new TypeError('bad'));
  reject(42);
  reject({ get message() { throw new Error('hostile'); } });
  assert.deepEqual(page.messages().map((m) => [m.type, m.message, m.source]), [
    ['rejection', 'TypeError: bad', 'https://app.example/index.html'],
    ['rejection', '42', 'https://app.example/index.html'],
    ['rejection', '[unreadable rejection]', 'https://app.example/index.html'],
  ]);
});

test('pagehide flushes the dropped count at once', () => {
  const page = health();
  throwError(page, {});
  throwError(page, {});
  page.window.dispatchEvent(new FakeEvent('pagehide'));
  assert.deepEqual(page.messages().at(-1), { kind: 'dropped', count: 1 });
});

test('twice injected into one world, it captures once', () => {
  const page = health();
  page.inject('hybrid-health.js');
  throwError(page, {});
  assert.equal(page.messages().length, 1);
  assert.equal(page.window.count('error'), 1);
});

function paintedPage(options = {}, prefix = '') {
  const paint = [{ name: 'first-paint', startTime: 12.34567 }, { name: 'first-contentful-paint', startTime: 20.5 }];
  const navigation = [{ responseStart: 0, domContentLoadedEventEnd: 30.1, loadEventEnd: 0 }];
  return health({ ...options, globals: { performance: { timeOrigin: 5000.25, getEntriesByType: (type) => (type === 'paint' ? paint : navigation) } } }, prefix);
}

test('the timing leaves a quarter of a second after the load, once', () => {
  const page = paintedPage();
  page.window.dispatchEvent(new FakeEvent('load'));
  page.clock.tick(0);
  page.clock.tick(249);
  assert.deepEqual(page.messages(), []);
  page.clock.tick(1);
  assert.deepEqual(page.messages(), [{ kind: 'timing', page: 'https://app.example/index.html', timeOrigin: 5000.25,
    responseStart: 0, domContentLoaded: 30.1, load: null, firstPaint: 12.346, firstContentfulPaint: 20.5 }]);
  page.window.dispatchEvent(new FakeEvent('pagehide'));
  page.clock.tick(20000);
  assert.equal(page.messages().length, 1);
});

test('no timing when only errors are wanted, in a frame, or for a placeholder document', () => {
  for (const [options, prefix] of [[{}, 'window.__hybridkitHealthErrorsOnly = true;\n'], [{ top: false }, ''], [{ href: 'about:blank' }, '']]) {
    const page = paintedPage(options, prefix);
    page.window.dispatchEvent(new FakeEvent('load'));
    page.clock.tick(20000);
    assert.deepEqual(page.messages(), [], JSON.stringify(options) + prefix);
    assert.equal(page.window.count('error'), 1, 'errors are still captured');
  }
});

test('a page that goes away after its load sends the timing at once', () => {
  const page = paintedPage();
  page.window.dispatchEvent(new FakeEvent('load'));
  page.clock.tick(0);
  page.window.dispatchEvent(new FakeEvent('pagehide'));
  assert.equal(page.messages()[0].kind, 'timing');
});

test('without a message handler it does nothing', () => {
  const page = makePage({ handlers: [] });
  page.inject('hybrid-health.js');
  assert.equal(page.window.count('error'), 0);
});
