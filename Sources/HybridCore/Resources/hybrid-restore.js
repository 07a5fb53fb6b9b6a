// GENERATED FILE, do not edit: scripts/build-runtime.mjs assembled it from these modules of
//   restore/main.js.
// Edit them and run `make runtime` (docs/page-runtime.md).
// HybridKit page-state capture and restore: the page side of crash-state restore (docs/restore.md).
//
// Injected at document start into the top frame, in the container's own script world (the
// bridge's, `hybridkit`), with the message handler `hybridkitRestore` in that world: the page
// cannot see or call it. The world shares the page's DOM and storage, not its globals.
//
// Cheap on purpose: nothing runs until the page loads; then a report is posted after the load, on
// `pagehide`, when the page is hidden, on history moves, and a third of a second after the last
// input, change or scroll. A report reads only controls whose value differs from their default.
//
// Posts JSON strings:
//   {kind: 'state', url, sessionStorage: {key: value}, scrollX, scrollY,
//    fields: [{key: 'form/name/n', value} | {key, checked}]}
//   {kind: 'state', url, optOut: true}    the page has <meta name="hybrid-restore" content="none">
//   {kind: 'state', url, tooLarge: true}  the state is over the size the container keeps
// Never: passwords, files, hidden inputs, controls (or forms) marked autocomplete=off.
//
// The container calls, in the same world:
//   __hybridkitRestoreReport()               the report above, as a string, now;
//   __hybridkitRestoreApply(state, history)  writes a snapshot back into the loaded page
//                                            (history: also push its same-origin entries).
(function () {
  'use strict';
  if (window.__hybridkitRestoreActive || window !== window.top) return;
  window.__hybridkitRestoreActive = true;
  var handlers = window.webkit && window.webkit.messageHandlers;
  var handler = handlers && handlers.hybridkitRestore;
  var MAX_CHARS = 200000;
  var DEBOUNCE_MS = 300;
  var SKIPPED = { password: 1, file: 1, hidden: 1, submit: 1, button: 1, reset: 1, image: 1 };

  function optedOut() {
    var meta = document.querySelector('meta[name="hybrid-restore" i]');
    return !!meta && String(meta.getAttribute('content') || '').trim().toLowerCase() === 'none';
  }

  function isKept(control) {
    if (SKIPPED[String(control.type || '').toLowerCase()]) return false;
    var own = control.getAttribute('autocomplete');
    var form = control.form && control.form.getAttribute('autocomplete');
    return String(own != null ? own : (form || '')).trim().toLowerCase() !== 'off';
  }

  // Calls each(control, key) for every named control; a key is stable across loads of one page.
  function eachControl(each) {
    var counts = {};
    var forms = Array.prototype.slice.call(document.forms);
    var controls = document.querySelectorAll('input, textarea, select');
    for (var i = 0; i < controls.length; i++) {
      var control = controls[i];
      var name = control.name || control.id;
      if (!name) continue;
      var base = (control.form ? forms.indexOf(control.form) : -1) + '/' + name;
      var n = counts[base] || 0;
      counts[base] = n + 1;
      each(control, base + '/' + n);
    }
  }

  function changedFields() {
    var fields = [];
    eachControl(function (control, key) {
      if (!isKept(control)) return;
      var type = String(control.type || '').toLowerCase();
      if (type === 'checkbox' || type === 'radio') {
        if (control.checked !== control.defaultChecked) fields.push({ key: key, checked: control.checked });
      } else if (control.tagName === 'SELECT') {
        for (var i = 0; i < control.options.length; i++) {
          if (control.options[i].selected !== control.options[i].defaultSelected) {
            fields.push({ key: key, value: String(control.value) });
            break;
          }
        }
      } else if (control.value !== control.defaultValue) {
        fields.push({ key: key, value: String(control.value) });
      }
    });
    return fields;
  }

  function report() {
    var url = String(location.href);
    if (optedOut()) return JSON.stringify({ kind: 'state', url: url, optOut: true });
    var storage = {};
    try {
      for (var i = 0; i < sessionStorage.length; i++) {
        var key = sessionStorage.key(i);
        storage[key] = sessionStorage.getItem(key);
      }
    } catch (e) { /* storage denied: nothing to keep */ }
    var text = JSON.stringify({ kind: 'state', url: url, sessionStorage: storage, scrollX: window.scrollX,
                                scrollY: window.scrollY, fields: changedFields() });
    return text.length > MAX_CHARS ? JSON.stringify({ kind: 'state', url: url, tooLarge: true }) : text;
  }
  window.__hybridkitRestoreReport = report;

  window.__hybridkitRestoreApply = function (state, pushHistory) {
    if (optedOut()) return false;
    var storage = state.sessionStorage || {};
    for (var key in storage) {
      try { sessionStorage.setItem(key, storage[key]); } catch (e) { /* full or denied */ }
    }
    var byKey = {};
    (state.fields || []).forEach(function (field) { byKey[field.key] = field; });
    eachControl(function (control, key) {
      var field = byKey[key];
      if (!field || !isKept(control)) return;
      if (typeof field.checked === 'boolean') control.checked = field.checked;
      else if (typeof field.value === 'string') control.value = field.value;
      else return;
      control.dispatchEvent(new Event('input', { bubbles: true }));
      control.dispatchEvent(new Event('change', { bubbles: true }));
    });
    if (pushHistory && state.history && state.history.length) {
      var current = String(location.href);
      try {
        history.replaceState(null, '', state.history[0]);
        for (var i = 1; i < state.history.length; i++) history.pushState(null, '', state.history[i]);
        history.pushState(null, '', current);
      } catch (e) { /* another origin: the container never sends one */ }
    }
    window.scrollTo(state.scrollX || 0, state.scrollY || 0);
    return true;
  };

  if (!handler) return;
  var loaded = false;
  var timer = 0;
  function post() {
    if (timer) { clearTimeout(timer); timer = 0; }
    if (!loaded) return;
    try { handler.postMessage(report()); } catch (e) { /* the view is gone */ }
  }
  function soon() {
    if (timer) clearTimeout(timer);
    timer = setTimeout(post, DEBOUNCE_MS);
  }
  window.addEventListener('load', function () { loaded = true; setTimeout(post, 0); });
  window.addEventListener('input', soon, true);
  window.addEventListener('change', soon, true);
  window.addEventListener('scroll', soon, { capture: true, passive: true });
  window.addEventListener('pagehide', post, true);
  window.addEventListener('popstate', post, true);
  window.addEventListener('hashchange', post, true);
  document.addEventListener('visibilitychange', function () { if (document.visibilityState === 'hidden') post(); }, true);
})();
