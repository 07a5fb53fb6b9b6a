// The demo's page helper: every tour page runs its check with `demo.run(feature, body)`, shows the
// result on the page, and reports it to the app through the bridge (the `demo` module).
'use strict';

window.demo = {
  /** The app's view of the tour: loopback origin, crash count, remembered flags, hand-offs. */
  state: () => hybrid.call('demo', 'state'),

  /** Keeps a value in the app across reloads, crashes and back navigations. */
  remember: (key, value) => hybrid.call('demo', 'remember', { key, value: String(value) }),

  log(text) {
    const log = document.getElementById('log');
    if (log) log.textContent += `${text}\n`;
  },

  expect(condition, message) {
    if (!condition) throw new Error(message);
  },

  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),

  /** Polls `check` (sync or async) until it returns something truthy; throws after `ms`. */
  async waitFor(what, check, ms = 8000) {
    const deadline = performance.now() + ms;
    for (;;) {
      const value = await check();
      if (value) return value;
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await demo.sleep(50);
    }
  },

  /** Runs `body`, shows ok/FAILED with its figure, and reports `{ feature, ok, figure, details }`. */
  async run(feature, body) {
    await hybrid.ready;
    const result = document.getElementById('result');
    let ok = false;
    let figure = '';
    let details = null;
    try {
      const value = await body();
      if (value && typeof value === 'object') {
        figure = value.figure ?? '';
        details = value.details ?? null;
      } else {
        figure = String(value ?? '');
      }
      ok = true;
    } catch (error) {
      figure = `${error.code || error.name}: ${error.message}`;
    }
    if (result) {
      result.className = ok ? 'ok' : 'fail';
      result.textContent = `${ok ? '✔ ok' : '✘ FAILED'} — ${figure}`;
    }
    await hybrid.call('demo', 'report', { feature, ok, figure, details });
  },
};

// Boot health: a newly installed version of the demo package is on trial until one of its pages
// says it works; only the package's own origin may say so.
hybrid.call('app', 'ready').catch(() => {});
