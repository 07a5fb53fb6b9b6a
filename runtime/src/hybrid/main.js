// HybridKit page runtime: `window.hybrid`, the same API on every engine and transport.
//
// Injected by the container at document start, main frame only, in the page's own world.
// It never touches a native message handler itself: it talks to the container's transport
// (an isolated script world where the engine has one) through DOM CustomEvents whose
// `detail` is a JSON string, or, for the legacy transport, through a queue the container
// fetches when a hidden iframe navigates to `hybrid://__queue__`.
(function () {
  'use strict';
  if (window.hybrid && window.hybrid.__hybridkit) return;

  // @include ../shared/globals.js
  // @include ../shared/protocol.js
  // @include ../shared/event-sender.js

  var boot = takeGlobal('__hybridkitBoot') || {};

  var RUNTIME_VERSION = '1.0.0';
  var scheme = boot.urlScheme || 'hybrid';
  var defaultTransport = boot.transport === 'url' ? 'url' : 'event';
  // The byte channel (docs/bridge.md, "Bytes without base64"): where the engine has one, byte
  // values of at least `byteThreshold` bytes cross as fetch bodies to `byteChannel + token`. The
  // page's fetch as it is at document start is kept, before any page script runs: the engine's,
  // or the request proxy's wrapper, which hands every URL it does not proxy to the engine's.
  var byteChannel = typeof boot.byteChannel === 'string' && typeof window.fetch === 'function' ? boot.byteChannel : null;
  var byteThreshold = boot.byteThreshold || 65536;
  var channelFetch = byteChannel ? window.fetch.bind(window) : null;
  // Where a loopback endpoint (Blink) serves the channel, reads have a path of their own and posts
  // are Blobs (the constructor kept at document start too).
  var byteChannelReads = byteChannel && typeof boot.byteChannelReads === 'string' ? boot.byteChannelReads : byteChannel;
  var channelBlob = byteChannel && boot.byteChannelBlobs === true && typeof window.Blob === 'function' ? window.Blob : null;

  var nonce = null;
  var info = null;
  // The container's message limit is known from document start (boot), so a call made before the
  // handshake, or over the URL transport, is measured before anything is read or sent.
  function messageLimit() { return (info && info.maxMessageBytes) || boot.maxMessageBytes; }
  // The container knows this document: set by `ready`, cleared when the page goes into the
  // page cache (a restored document is announced again before its calls are sent).
  var announced = false;
  // A random first id: a late reply meant for a previous document can never match a call here.
  var nextId = 1 + Math.floor(Math.random() * 1e9);
  var pending = new Map();
  var listeners = new Map();
  var waiting = [];
  var resolveReady;
  var ready = new Promise(function (resolve) { resolveReady = resolve; });

  function HybridError(code, message, data) {
    var error = new Error(message || code);
    error.name = 'HybridError';
    error.code = code;
    if (data !== undefined && data !== null) error.data = data;
    return error;
  }

  // @include bytes.js

  // @include byte-channel.js

  // @include json-bytes.js

  // @include receive.js

  // @include send.js

  // @include url-transport.js

  // @include lifecycle.js

  // @include api.js

  if (defaultTransport === 'url') {
    // No handshake on this transport: ask the `hybrid` module who we are.
    call('hybrid', 'info', {}, { transport: 'url' }).then(function (value) {
      becomeReady({ info: value });
    }, function () { becomeReady({ info: {} }); });
  } else {
    // The transport may have finished its handshake before this listener existed.
    document.dispatchEvent(new CustomEvent(HELLO_EVENT));
  }
})();
