// A page for the runtime's tests: the injected scripts run as the container runs them (one
// script each, the assembled resource), against a fake window, document, clock and native side.
//
// Each script is compiled as the body of a function whose parameters are the page's globals
// (vm.compileFunction), so it runs in this realm (bytes, arrays and Promises compare as usual)
// while every name it reads from the page (window, document, setTimeout, location, ...) is a fake
// this file controls. A name the page does not define here falls through to node's own global
// (Headers, Response, Blob, URL, TextEncoder, ...), which behave as the engines' do.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { resourcePath, scripts } from '../../scripts/build-runtime.mjs';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const sources = join(root, 'runtime', 'src');

/** The shipped text of a resource (`hybrid.js`, ...), from the bundle of the module that ships it. */
export function resource(name) {
  const script = scripts.find((s) => s.output === name);
  return readFileSync(script ? resourcePath(script) : join(root, 'Sources', 'HybridBridge', 'Resources', name), 'utf8');
}

// ---- time -------------------------------------------------------------------------------
/** Timers that run only when the test advances the clock. */
export class Clock {
  constructor() { this.now = 0; this.timers = new Map(); this.nextId = 1; this.errors = []; }
  setTimeout(fn, delay) {
    const id = this.nextId++;
    this.timers.set(id, { at: this.now + Math.max(0, Number(delay) || 0), fn, id });
    return id;
  }
  clearTimeout(id) { this.timers.delete(id); }
  get pending() { return this.timers.size; }
  /** Runs every timer due within `ms`, in time order; a timer's throw is kept in `errors`. */
  tick(ms) {
    const end = this.now + ms;
    for (;;) {
      const due = [...this.timers.values()].filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers.delete(due.id);
      this.now = due.at;
      try { due.fn(); } catch (e) { this.errors.push(e); }
    }
    this.now = end;
  }
}

// ---- events -----------------------------------------------------------------------------
export class FakeEvent {
  constructor(type, init = {}) {
    this.type = type;
    this.eventPhase = 0;
    this.defaultPrevented = false;
    this.isTrusted = !!init.isTrusted;
    Object.assign(this, init);
  }
  preventDefault() { this.defaultPrevented = true; }
}
export class FakeCustomEvent extends FakeEvent {
  constructor(type, init = {}) { super(type); this.detail = init.detail === undefined ? null : init.detail; }
  initCustomEvent(type, bubbles, cancelable, detail) {
    if (this.eventPhase !== 0) throw new Error('initCustomEvent while dispatching');
    this.type = type;
    this.detail = detail;
  }
}
export class FakeErrorEvent extends FakeEvent {}

/** addEventListener/dispatchEvent as a document or window has them (no bubbling). */
export class Target {
  constructor() { this.listeners = new Map(); this.dispatched = []; }
  addEventListener(type, fn) {
    const list = this.listeners.get(type) || [];
    list.push(fn);
    this.listeners.set(type, list);
  }
  removeEventListener(type, fn) {
    const list = this.listeners.get(type) || [];
    this.listeners.set(type, list.filter((f) => f !== fn));
  }
  dispatchEvent(event) {
    this.dispatched.push(event.type);
    const outer = event.eventPhase;
    event.eventPhase = 2;
    try {
      for (const fn of (this.listeners.get(event.type) || []).slice()) fn.call(this, event);
    } finally { event.eventPhase = outer; }
    return !event.defaultPrevented;
  }
  count(type) { return (this.listeners.get(type) || []).length; }
}

// ---- the page ---------------------------------------------------------------------------
/**
 * A page: `window` (also `page.window`), `document`, a clock, and what the scripts posted to
 * native (`page.posted[handlerName]`). Options: `href`, `handlers` (message handler names, each
 * recording posts; `replies: fn(text) -> Promise` answers them), `top: false` (an iframe),
 * `globals` (more page globals, or overrides).
 */
export function makePage(options = {}) {
  const clock = new Clock();
  const document = new Target();
  document.baseURI = options.href || 'https://app.example/index.html';
  document.URL = document.baseURI;
  const window = new Target();
  const location = new URL(options.href || 'https://app.example/index.html');
  const posted = {};
  const handlers = {};
  for (const name of options.handlers || []) {
    posted[name] = [];
    handlers[name] = {
      postMessage(text) {
        posted[name].push(text);
        return options.replies ? options.replies(text, name) : undefined;
      },
    };
  }
  window.webkit = { messageHandlers: handlers };
  window.top = options.top === false ? {} : window;
  window.fetch = options.fetch || (() => Promise.reject(new Error('no network in tests')));
  const globals = {
    window, document, location,
    navigator: { userAgent: options.userAgent || 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko)' },
    setTimeout: (fn, ms) => clock.setTimeout(fn, ms),
    clearTimeout: (id) => clock.clearTimeout(id),
    CustomEvent: FakeCustomEvent,
    Event: FakeEvent,
    ErrorEvent: FakeErrorEvent,
    MutationObserver: class { observe() {} disconnect() {} },
    performance: { timeOrigin: 1000, getEntriesByType: () => [] },
    PerformanceObserver: class { observe() {} disconnect() {} },
    XMLHttpRequest: options.XMLHttpRequest || class { },
    XMLHttpRequestUpload: undefined,
    HTMLFormElement: class { submit() {} },
    Document: undefined,
    console: { warn() {}, error() {}, log() {} },
    ...(options.globals || {}),
  };
  // Globals a script reads as `window.NAME` too.
  for (const name of ['location', 'navigator', 'document']) window[name] = globals[name];
  const page = { window, document, location, clock, posted, globals };
  page.run = (source, filename = 'script.js') => {
    const names = Object.keys(globals);
    const fn = vm.compileFunction(source, names, { filename });
    return fn.apply(undefined, names.map((n) => globals[n]));
  };
  page.inject = (name, prefix = '') => page.run(prefix + resource(name), name);
  /** Dispatches a message on the document as the transport does (`hybridkit:recv`). */
  page.toRuntime = (message) => {
    const event = new FakeCustomEvent('hybridkit:recv', { detail: typeof message === 'string' ? message : JSON.stringify(message) });
    document.dispatchEvent(event);
  };
  /** What the runtime sent (`hybridkit:send` details), parsed. */
  page.sent = [];
  document.addEventListener('hybridkit:send', (event) => {
    if (typeof event.detail !== 'string') return;
    try { page.sent.push(JSON.parse(event.detail)); } catch (e) { page.sent.push(event.detail); }
  });
  return page;
}

/**
 * Runs the modules `files` (relative to runtime/src) in one function scope, as a script's
 * IIFE does, and returns the functions and values named in `names`: the unit tests' way to a
 * helper that no page global exposes.
 */
export function loadModules(files, names, page = makePage()) {
  const text = files.map((file) => readFileSync(join(sources, file), 'utf8')).join('\n');
  const source = `'use strict';\n${text}\nreturn { ${names.map((n) => `${n}: typeof ${n} === 'undefined' ? undefined : ${n}`).join(', ')} };`;
  return page.run(source, files.join('+'));
}

/** Lets every pending promise reaction run. */
export async function settle(rounds = 5) {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}

/** A JSON round trip: values made by a script compare as plain data. */
export function plain(value) { return JSON.parse(JSON.stringify(value)); }
