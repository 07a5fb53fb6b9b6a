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
