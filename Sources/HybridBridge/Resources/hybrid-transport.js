// GENERATED FILE, do not edit: scripts/build-runtime.mjs assembled it from these modules of
//   transport/main.js, shared/protocol.js, shared/event-sender.js.
// Edit them and run `make runtime` (docs/page-runtime.md).
// The bridge transport: the only code that touches window.webkit.messageHandlers[HANDLER].
// It runs in the bridge's isolated world (top frame only) where the engine has worlds, else in
// the page's world guarded by a per-document nonce. It relays the page runtime's DOM
// CustomEvents (a JSON string `detail`) to native and native's answers back. An empty answer is
// nothing to deliver (a reply to a document that has gone) and is dropped here, silently.
// BridgeTransportScript.source(handlerName:replies:issuedNonce:) fills in the configuration.
(function (config) {
  'use strict';
  var HANDLER = config.handler, REPLIES = config.replies, ISSUED = config.issued;
  if (window.top !== window || window.__hybridkitTransport) return;
  var handlers = window.webkit && window.webkit.messageHandlers;
  var handler = handlers && handlers[HANDLER];
  if (!handler) return;
  var nonce = null, readyText = null;
  // Hellos asked with replies: only the latest one's answer is this document's.
  var hellos = 0;
  // The DOM events between the page runtime (hybrid.js, page world) and the bridge transport
  // (hybrid-transport.js, the bridge's world): each carries one JSON string as its `detail`.
  // Provides: SEND_EVENT (runtime -> transport), RECV_EVENT (transport -> runtime), HELLO_EVENT
  // (the runtime has started: the transport repeats its `ready`).
  var SEND_EVENT = 'hybridkit:send';
  var RECV_EVENT = 'hybridkit:recv';
  var HELLO_EVENT = 'hybridkit:hello';
  // Provides: eventSender(type) -> function (text) dispatching `text` on `document` as the detail of
  // a CustomEvent of `type`.
  // One event re-initialised per message instead of one made per message (about half the cost of
  // the DOM round trip, measured: docs/bridge.md, "What a call costs"). An event still being
  // dispatched (a message sent from a listener of one) cannot be re-initialised: that message gets
  // a new event. WebKit holds a detail given to initCustomEvent weakly (no write barrier), so the
  // text is held here while it is dispatched, and the detail is cleared after (a page that keeps
  // the event reads null, and no message is kept alive by it).
  function eventSender(type) {
    var event = null, held = null;
    return function (text) {
      if (event === null || event.eventPhase !== 0) event = new CustomEvent(type);
      var current = event, outer = held;
      held = text;
      current.initCustomEvent(type, false, false, text);
      document.dispatchEvent(current);
      current.initCustomEvent(type, false, false, null);
      held = outer;
    };
  }
  // Each direction re-initialises one event (the runtime sends the same way).
  var toPage = eventSender(RECV_EVENT);
  function fromNative(text) {
    if (typeof text !== 'string' || text.length === 0) return;
    // Only the hello acknowledgement is read here; everything else goes to the page as is.
    if (text.lastIndexOf('{"t":"hello"', 0) === 0) {
      var ack;
      try { ack = JSON.parse(text); } catch (e) { return; }
      if (!ack.ok) return;
      // With replies the answer is this document's own: it carries the nonce native issued.
      if (REPLIES) {
        if (typeof ack.nonce !== 'string' || !ack.nonce) return;
        nonce = ack.nonce;
      }
      readyText = JSON.stringify({ t: 'ready', nonce: nonce, info: ack.value });
      toPage(readyText);
      return;
    }
    toPage(text);
  }
  function post(text) {
    if (!REPLIES) { handler.postMessage(text); return; }
    handler.postMessage(text).then(fromNative, function (error) {
      var id = null;
      var match = /^\{"v":1,"id":(\d+)/.exec(text.slice(0, 40));
      if (match) id = Number(match[1]);
      if (id !== null) toPage(JSON.stringify({ t: 'reply', id: id, ok: false,
        error: { code: 'internal', message: String(error && error.message || error) } }));
    });
  }
  document.addEventListener(SEND_EVENT, function (event) {
    // Read `detail` once: across script worlds every read may copy it.
    var detail = event.detail;
    if (nonce !== null && typeof detail === 'string') post(detail);
  });
  document.addEventListener(HELLO_EVENT, function () {
    if (readyText !== null) toPage(readyText);
  });
  Object.defineProperty(window, '__hybridkitTransport', { value: Object.freeze({
    deliver: function (forNonce, texts) {
      if (forNonce !== nonce) return;
      for (var i = 0; i < texts.length; i++) fromNative(texts[i]);
    },
    setNonce: function (issued, info) {
      if (!ISSUED || nonce !== null) return;
      nonce = issued;
      readyText = JSON.stringify({ t: 'ready', nonce: nonce, info: info });
      toPage(readyText);
    }
  }) });
  // A document going into the page cache is a new bridge document when it comes back: the
  // container issues it a new nonce (at its commit, or in the answer to its hello), or it
  // announces its own again (below).
  window.addEventListener('pagehide', function (event) {
    if (!event.persisted) return;
    readyText = null;
    if (ISSUED || REPLIES) nonce = null;
    hellos++;  // an answer still on its way belongs to the document before the page cache
  });
  if (ISSUED) {
    if (typeof window.__hybridkitIssued === 'object' && window.__hybridkitIssued) {
      var early = window.__hybridkitIssued;
      delete window.__hybridkitIssued;
      window.__hybridkitTransport.setNonce(early.nonce, early.info);
    }
    return;
  }
  // A new document says hello. With replies it asks for its nonce: native makes it and the
  // hello's answer, which reaches this document alone, carries it (`crypto.getRandomValues` here
  // cost about 1.5 ms a document in WebKitGTK's isolated world: docs/first-screen.md). Without
  // replies the answer comes back by evaluation and is matched by a nonce made here.
  if (!REPLIES) {
    var bytes = new Uint8Array(24);
    crypto.getRandomValues(bytes);
    nonce = Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join('');
  }
  function hello() {
    if (!REPLIES) { post(JSON.stringify({ t: 'hello', v: 1, nonce: nonce })); return; }
    var asked = ++hellos;
    handler.postMessage('{"t":"hello","v":1}').then(function (text) {
      if (asked === hellos) fromNative(text);
    }, function () { /* the handler is gone: the page never becomes ready */ });
  }
  hello();
  // A document restored from the page cache is committed again without running this script:
  // announce it again, or the container would take its calls for a stale document's.
  window.addEventListener('pageshow', function (event) {
    if (event.persisted) hello();
  });
})(__HYBRIDKIT_TRANSPORT_CONFIG__);
