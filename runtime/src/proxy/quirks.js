// ---- where the engines differ ----------------------------------------------------------
// Measured against each engine's own networking (ProxyFidelityTests); the proxy does what the
// engine it runs in does. Blink's user agent names Chrome, WebKit's (GTK and Apple) does not.
var blink = /\bChrome\//.test(navigator.userAgent);
var quirks = {
  // WebKit keeps responseURL after abort(); Blink clears it, as the standard says.
  urlAfterAbort: !blink,
  // An XHR blob's type: Blink gives the final MIME type's essence, WebKit the whole type.
  xhrBlobEssence: blink,
  // Response.blob() of a network response: WebKit gives the essence, Blink the whole Content-Type.
  fetchBlobEssence: !blink,
  // WebKit gives an opaque-redirect response an empty body, Blink none.
  opaqueRedirectBody: !blink,
  // WebKit's fetch and body reads reject with its own AbortError ("Fetch is aborted")
  // whatever the signal's reason; Blink's with the reason.
  abortIgnoresReason: !blink,
  // WebKit takes an XHR's timeout at send(); Blink, as the standard says, also one set later.
  timeoutAtSend: !blink,
  // Both engines fire a report-only policy's securitypolicyviolation event twice for a request
  // that is allowed, once for one an enforced policy refuses (measured, WebKitGTK 2.50 and
  // Chromium 156: each checks a request twice, the second time only when the first let it go).
  reportOnlyEvents: 2,
  // WebKit (2.50) takes fetch's cache: 'only-if-cached' as 'force-cache': a miss goes to the
  // network instead of failing; Blink fails it with a network error, as the standard says.
  onlyIfCachedUsesNetwork: !blink,
  // The TypeError a fetch the engine refused (CSP, mixed content, a network error) rejects with.
  networkErrorMessage: blink ? 'Failed to fetch' : 'Load failed',
  // Native rules (ProxyRequest.quirks): Blink decides at the first hop whether a request has
  // an Origin header, so a same-origin GET redirected to another origin has none; Blink's
  // Accept-Encoding names br and zstd too (Chromium 156 "gzip, deflate, br, zstd", loopback http
  // included), WebKitGTK 2.50's does not ("gzip, deflate").
  native: blink ? ['origin-from-first-hop', 'accept-encoding-br-zstd'] : []
};
