// ---- container lifecycle ---------------------------------------------------------------
// Returning to a page from the page cache does not fire `load`: tell the page it resumed.
// (The container emits the same event when it becomes visible again.)
// Calls made from then on (a `resume` handler's, say) wait for the container to know the
// restored document again, or it would refuse them as a stale document's.
window.addEventListener('pagehide', function (event) {
  if (event.persisted && defaultTransport !== 'url') announced = false;
});
window.addEventListener('pageshow', function (event) {
  if (event.persisted) dispatchEvent('resume', { reason: 'pageshow', persisted: true });
});
// A capture function for the container's snapshot (canvas/WebGL content that an engine
// snapshot renders blank): it returns a PNG data URL, or a Promise of one.
var snapshotCapture = null;
Object.defineProperty(window, '__hybridkitSnapshot', {
  value: function () {
    if (typeof snapshotCapture !== 'function') return null;
    return Promise.resolve().then(snapshotCapture).then(function (url) {
      return typeof url === 'string' && url.indexOf('data:image/png;base64,') === 0 ? url : null;
    }, function () { return null; });
  }
});
