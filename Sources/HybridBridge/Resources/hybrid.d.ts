// Type definitions for the HybridKit page runtime (`window.hybrid`), runtime version 1.0.0.
//
// The container injects the runtime into the main frame of every page at document start, so
// `window.hybrid` exists before any page script runs. Iframes never get it.
//
//   const info = await hybrid.call('device', 'info');
//   hybrid.on('network', (state) => console.log(state));

export {};

declare global {
  interface Window {
    /** The HybridKit bridge. Present in the main frame of pages shown by a HybridKit container. */
    readonly hybrid: Hybrid;
  }
  /** The HybridKit bridge. Present in the main frame of pages shown by a HybridKit container. */
  const hybrid: Hybrid;
}

/**
 * What params and results may hold: JSON values, and bytes. Bytes (`ArrayBuffer`, any typed
 * array, `DataView`, `Blob`/`File` — read before the call is sent) are sent as `{"$bytes": base64}`,
 * or from 64 KB on, where the engine has a byte channel (`capabilities.binary === 'channel'`), as
 * request and response bodies of the container's `hybrid-bytes:` scheme; either way they come back
 * as `Uint8Array`. A module that streams bytes as they arrive (a byte feed, `{"$feed": token}` on the
 * wire) puts a `ReadableStream<Uint8Array>` in its result or progress value instead: one request
 * to the byte channel, read as the app writes.
 */
export type JSONValue = null | boolean | number | string | Bytes | JSONValue[] | { [key: string]: JSONValue };

/** Binary data in params (sent as base64 or through the byte channel) and results (received as `Uint8Array`). */
export type Bytes = ArrayBuffer | ArrayBufferView | Blob;

/**
 * The stable codes a call can fail with. Modules may define their own codes too
 * (for example `storage` uses `quota_exceeded`), so compare against strings.
 */
export type HybridErrorCode =
  /** No module of that name is registered in this container. */
  | 'unknown_module'
  /** The module has no action of that name. */
  | 'unknown_action'
  /** The params are not what the action takes, or are not JSON-serialisable. `message` says where. */
  | 'bad_params'
  /** This page's origin may not call the module, or the call came from a document that is gone. */
  | 'denied'
  /** The call did not finish within its timeout. `data.timeout` is the timeout in ms. */
  | 'timeout'
  /** The call was aborted (`signal`), or its document went away before it finished. */
  | 'cancelled'
  /** The message exceeds the container's size limit. `data.size` and `data.limit` are in bytes. */
  | 'payload_too_large'
  /** The web content process died while the call was pending. */
  | 'engine_terminated'
  /** Too many calls are in flight; retry later. `data.limit` is the bound. */
  | 'queue_full'
  /** The container could not read the message (only hand-made messages can cause this). */
  | 'malformed'
  /** The feature behind the action is not available in this container. */
  | 'unavailable'
  /** The native side failed unexpectedly. */
  | 'internal'
  | (string & {});

/** The error a rejected `hybrid.call` carries. `name` is always `'HybridError'`. */
export interface HybridError extends Error {
  readonly name: 'HybridError';
  /** A stable code to switch on. */
  readonly code: HybridErrorCode;
  /** A human-readable explanation, for logs, not for users. */
  readonly message: string;
  /** Extra JSON the failure carries, when there is any. */
  readonly data?: JSONValue;
}

/**
 * The codes a proxied request can fail with. When the container's request proxy carries a
 * page's `fetch`/`XMLHttpRequest` natively (`hybrid-proxy.js`), a failed `fetch` rejects with a
 * {@link ProxyFetchError}: a `TypeError` (as an engine's own `fetch` failure is) whose `code` is
 * one of these, or any {@link HybridErrorCode} of the bridge call that carried the request
 * (`engine_terminated`, `queue_full`, `denied`, ...).
 */
export type ProxyErrorCode =
  /** The request body (checked in the page first) or the response body exceeds the proxy's limit. */
  | 'payload_too_large'
  /** More redirects than the proxy follows (a loop). */
  | 'too_many_redirects'
  /** The request, or the bridge call carrying it, did not finish in time. */
  | 'timeout'
  /** The transport failed: refused, reset, DNS, TLS, or `redirect: 'error'` met a redirect. */
  | 'network_error'
  /** The proxy refused the request or one of its redirects: not covered by its policy, or not http(s). */
  | 'proxy_denied'
  /** A cross-origin request failed the CORS check the engine would have made (its own fetch fails the same way). */
  | 'cors_denied'
  /**
   * The document's Content Security Policy (`connect-src`, or `default-src`) refuses the request;
   * nothing was sent. A hooked `fetch`/XHR shows it as the engine does (a plain `TypeError` or an
   * `error` event, and a `securitypolicyviolation` event); a direct bridge call sees this code and
   * `error.data.violations`.
   */
  | 'csp_denied'
  /** A secure page (https, an offline package) asked for plain http that is not loopback; nothing was sent. */
  | 'mixed_content'
  /** The response body did not match the request's `integrity` metadata; none of it reaches the page. */
  | 'integrity_mismatch'
  /** The page has no bridge (`window.hybrid` is missing). */
  | 'unavailable'
  /**
   * A streamed request body (a `Blob`, `File`, `FormData` or large body the container pulls from
   * the page in slices) could not be sent as declared: the page could not read it, or a slice did
   * not match its offset, length or encoding. Nothing more of it reaches the server.
   */
  | 'invalid_body'
  /** The native side failed unexpectedly (for example a request body that is not valid base64). */
  | 'internal'
  | HybridErrorCode;

/**
 * How a proxied `fetch` fails: `fetch(...)` rejects with this `TypeError`; its `message` reads
 * `Load failed: <code>: <reason>`. An aborted `fetch` rejects with the signal's reason (an
 * `AbortError` `DOMException`) instead. A proxied `XMLHttpRequest` never throws: it fires `timeout`
 * for the code `timeout` and `error` for every other code, as an engine's own XHR would.
 */
export interface ProxyFetchError extends TypeError {
  /** A stable code to switch on (`err instanceof TypeError && err.code === 'proxy_denied'`). */
  readonly code: ProxyErrorCode;
}

/** Options of one call. */
export interface CallOptions<Progress = JSONValue> {
  /**
   * Milliseconds before the call fails with `timeout`. The native work is cancelled too.
   * Without it the container's default applies (30 s unless the app changed it).
   */
  timeout?: number;
  /** Called with each progress report the action sends, in order, before the call settles. */
  onProgress?: (progress: Progress) => void;
  /** Aborting fails the call with `cancelled` and cancels the native work. */
  signal?: AbortSignal;
  /**
   * Force the legacy URL-interception transport (a hidden iframe navigating to `hybrid://__queue__`)
   * for this call. Slower; meant for compatibility tests and benchmarks.
   */
  transport?: 'url';
}

/** What `hybrid.prefetched(key, {stale: true})` resolves with. */
export interface HybridPrefetchedCopies {
  /** The response there is now (kept from an earlier open, or the network's); `null` when none yet. */
  data: Response | null;
  /** Seconds since `data` arrived from the network; `null` with no `data`. */
  age: number | null;
  /** Whether `data` is a kept response older than the rule's `keep.maxAge` (a fresh one was asked for). */
  stale: boolean;
  /**
   * The network's response when it arrives, with its age; `null` when no request was needed
   * (`data` is fresh, or there is no prefetch). Rejects with the request's error when it failed;
   * the kept response stays kept.
   */
  fresh: Promise<{ data: Response; age: number } | null>;
}

/** What the container reports about itself once `hybrid.ready` has resolved. */
export interface HybridCapabilities {
  /** The engine behind the container: `webkit` (WebKitGTK, WKWebView) or `blink`. */
  readonly engine?: string;
  /** The transport in use: `isolated-reply`, `isolated-callback`, `page-reply`, `page-callback` or `url`. */
  readonly transport?: string;
  /** The bridge's message handler lives in an isolated script world the page cannot reach. */
  readonly isolatedWorld?: boolean;
  /** The message handler answers with a reply (otherwise answers are evaluated back). */
  readonly messageReplies?: boolean;
  /** The legacy URL transport is available (`transport: 'url'`). */
  readonly urlTransport?: boolean;
  /** How bytes travel: `base64` (`{"$bytes": …}` on the wire), or `channel` (large values as bodies of the `hybrid-bytes:` scheme, small ones as base64). */
  readonly binary?: string;
  readonly [key: string]: JSONValue | undefined;
}

/** The built-in `device.info` result. */
export interface DeviceInfo {
  /** `linux`, `macos`, `ios`, `windows`, `android` or `unknown`. */
  platform: string;
  osVersion: string;
  /** A BCP 47 tag such as `en-US`. */
  locale: string;
  languages: string[];
  appName: string;
  appVersion: string;
}

/** The built-in `hybrid.info` result. */
export interface HybridInfo {
  version: string;
  capabilities: HybridCapabilities;
  /** The modules this page's origin may call. */
  modules: string[];
  /** The container's message size limit, in UTF-8 bytes. */
  maxMessageBytes: number;
}

/** One action's params and result. */
export interface ActionSignature<Params = JSONValue, Result = JSONValue> {
  params: Params;
  result: Result;
}

/**
 * Typed signatures of the built-in modules; other modules use the generic overload of `call`.
 * Apps may add their own modules here by declaration merging.
 */
export interface BuiltInModules {
  hybrid: {
    info: ActionSignature<{}, HybridInfo>;
    ping: ActionSignature<JSONValue, JSONValue>;
  };
  device: {
    info: ActionSignature<{}, DeviceInfo>;
  };
  storage: {
    get: ActionSignature<{ key: string }, JSONValue>;
    set: ActionSignature<{ key: string; value: JSONValue }, null>;
    remove: ActionSignature<{ key: string }, boolean>;
    keys: ActionSignature<{}, string[]>;
    clear: ActionSignature<{}, null>;
  };
  navigation: {
    open: ActionSignature<{ url: string; title?: string }, null>;
    close: ActionSignature<{}, null>;
    setTitle: ActionSignature<{ title: string }, null>;
    back: ActionSignature<{}, boolean>;
  };
  ui: {
    toast: ActionSignature<{ message: string; duration?: number }, null>;
    alert: ActionSignature<{ message: string; title?: string }, null>;
    confirm: ActionSignature<{ message: string; title?: string }, boolean>;
  };
}

type Signature<M extends keyof BuiltInModules, A extends keyof BuiltInModules[M]> =
  BuiltInModules[M][A] extends ActionSignature<infer P, infer R> ? ActionSignature<P, R> : ActionSignature;

/** The payload of the `resume` event. */
export interface ResumeEvent {
  reason: 'pageshow' | 'visible';
  persisted: boolean;
}

/** The payload of the `restored` event. */
export interface RestoredEvent {
  /**
   * Why the page was restored: the white screen recovery answered (`terminated_crashed`,
   * `terminated_exceeded_memory_limit`, `terminated_terminated_by_client`, `unresponsive`, …) or
   * `relaunch` (the app gave back a snapshot it stored).
   */
  reason: string;
  /** Milliseconds between the last state the container kept and the loss: what may be missing. */
  lostMs: number;
}

/** `window.hybrid`. */
export interface Hybrid {
  /**
   * Calls `action` of native `module` with `params` (any JSON; `{}` when omitted).
   * Calls made before `ready` are queued and sent once the bridge is up.
   * @returns the action's result.
   * @throws {HybridError} with a stable `code` (see {@link HybridErrorCode}).
   */
  call<M extends keyof BuiltInModules, A extends keyof BuiltInModules[M] & string>(
    module: M, action: A, params?: Signature<M, A>['params'], options?: CallOptions,
  ): Promise<Signature<M, A>['result']>;
  call<Result = JSONValue, Progress = JSONValue>(
    module: string, action: string, params?: JSONValue, options?: CallOptions<Progress>,
  ): Promise<Result>;

  /**
   * Listens for native events (`container.emit(name, payload)`). Events arrive in the order they
   * were sent, only in the document that was current when they were sent.
   * @returns a function that removes the listener.
   */
  on<Payload = JSONValue>(event: string, handler: (payload: Payload) => void): () => void;
  /**
   * The page came back without `load` firing: restored from the page cache (`reason: 'pageshow'`,
   * `persisted: true`) or its container became visible again (`reason: 'visible'`). Refresh here.
   */
  on(event: 'resume', handler: (payload: ResumeEvent) => void): () => void;
  /**
   * The page was loaded again after its content process died (or from a snapshot the app kept)
   * and the container gave back its sessionStorage, form fields and scroll position (and its
   * history where the engine kept none). Sent once per restore; never to a page with
   * `<meta name="hybrid-restore" content="none">`.
   */
  on(event: 'restored', handler: (payload: RestoredEvent) => void): () => void;

  /**
   * Registers the function the container calls for a snapshot instead of rendering the view
   * (for canvas/WebGL content an engine snapshot shows blank). It returns a PNG data URL
   * (`canvas.toDataURL('image/png')`) or a Promise of one; anything else, or a throw, falls
   * back to the engine's snapshot. `null` unregisters it.
   */
  onSnapshot(capture: (() => string | Promise<string>) | null): void;

  /**
   * Asks the container to prerender `url` (resolved against the document's base URL; only this
   * document's origin): loaded hidden in a view of its own, shown at once when the app opens it.
   * Resolves `true` when the container started (or already had) it, `false` when refused.
   * Needs a pool whose PrerenderPolicy lets pages ask (`pagesMayPrerender`); see docs/prerender.md.
   */
  prerender(url: string): Promise<boolean>;

  /**
   * The response of the data request the app started for this page when it opened it (a
   * `PrefetchRule` named `key`), as a `Response`; `null` when there is none: not declared,
   * failed, expired, already taken, or started for another origin. Waits for one in flight.
   * A page's own `fetch` of the same URL with the same credentials is answered from it too.
   * `withCookies` asks only for a response made with (or without) the app's cookies.
   */
  prefetched(key: string, options?: { withCookies?: boolean; stale?: false }): Promise<Response | null>;

  /**
   * Stale-while-revalidate (a `PrefetchRule` with a `keep`, docs/first-screen.md): resolves at
   * once with what is there now — the response kept from an earlier open (`stale: true` when it
   * is older than the rule's `keep.maxAge`: a request for a fresh one was made), or the network's
   * when it arrived first — and, in `fresh`, the network's response when it arrives. Render
   * `data` at once, then `fresh`'s when it is not `null`:
   *
   * ```js
   * const item = await hybrid.prefetched('item', { stale: true });
   * if (item.data) render(await item.data.json());
   * item.fresh.then(async (next) => { if (next) render(await next.data.json()); }, showOffline);
   * ```
   */
  prefetched(key: string, options: { withCookies?: boolean; stale: true }): Promise<HybridPrefetchedCopies>;

  /** Removes a listener; without `handler`, removes every listener of `event`. */
  off(event: string, handler?: (payload: any) => void): void;

  /** Resolves with `window.hybrid` once the bridge is connected. Never rejects. */
  readonly ready: Promise<Hybrid>;

  /** The bridge protocol version the container speaks (the runtime's own before `ready`). */
  readonly version: string;

  /** The page runtime's version. */
  readonly runtimeVersion: string;

  /** What the container reports about itself (empty before `ready`). */
  readonly capabilities: HybridCapabilities;

  /** The modules this page's origin may call (empty before `ready`). */
  readonly modules: readonly string[];

  /** The transport the runtime uses by default: `event` (an isolated transport) or `url`. */
  readonly transport: 'event' | 'url';

  /** Calls sent and not yet settled. */
  readonly pendingCount: number;
}
