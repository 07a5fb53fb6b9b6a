// Script errors: de-duplicated and capped here, so a page in an error loop costs one
// message per second, not one per error.
var maxErrors = 25, seen = Object.create(null), distinct = 0, folded = 0, flushTimer = 0;
function text(value, limit) {
  var s = '';
  try { s = String(value); } catch (e) { s = '[unprintable]'; }
  return s.length > limit ? s.slice(0, limit) : s;
}
function flushDropped() {
  flushTimer = 0;
  if (folded > 0) { post({ kind: 'dropped', count: folded }); folded = 0; }
}
function fold() {
  folded++;
  if (!flushTimer) flushTimer = setTimeout(flushDropped, 1000);
}
function report(type, message, source, line, column, stack) {
  var key = type + '\u0000' + message + '\u0000' + source + '\u0000' + line + '\u0000' + column;
  if (seen[key] || distinct >= maxErrors) return fold();
  seen[key] = true;
  distinct++;
  post({ kind: 'error', type: type, message: message, source: source, line: line, column: column,
         stack: stack, origin: origin });
}
window.addEventListener('error', function (event) {
  if (!(event instanceof ErrorEvent)) return;   // a resource failed to load, not a script error
  if (!event.isTrusted) return;                   // dispatched by a script, not thrown
  var error = event.error, stack = '';
  try { if (error && error.stack) stack = text(error.stack, 4000); } catch (e) { /* foreign object */ }
  report('error', text(event.message || '', 1000), text(event.filename || location.href, 2000),
         Number(event.lineno) || 0, Number(event.colno) || 0, stack);
}, true);
window.addEventListener('unhandledrejection', function (event) {
  var reason = event.reason, message = '', stack = '';
  try {
    if (reason && typeof reason === 'object' && 'message' in reason) {
      message = text((reason.name ? reason.name + ': ' : '') + reason.message, 1000);
      if (reason.stack) stack = text(reason.stack, 4000);
    } else {
      message = text(reason, 1000);
    }
  } catch (e) { message = '[unreadable rejection]'; }
  report('rejection', message, text(location.href, 2000), 0, 0, stack);
}, true);
// Errors folded and not posted yet (this world's own global: tests wait for it to reach 0).
window.__hybridkitHealthUnsent = function () { return folded; };
