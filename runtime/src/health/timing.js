// Page timing, top-level documents only, never for a view's placeholder (about:blank, data:).
recordsTiming = recordsTiming && isTop && location.protocol !== 'about:' && location.protocol !== 'data:';
var firstPaint = null, firstContentfulPaint = null, loaded = false, sent = false;
// A time in ms from navigation start; 0 means "not reached" for the load events, but is a
// measured time for the response's start (sent after the load, it has always been reached;
// WebKit's coarsened clock gives 0 for a loopback response within the first millisecond).
function round(value, zeroIsTime) {
  return typeof value === 'number' && (value > 0 || (zeroIsTime && value === 0)) ? Math.round(value * 1000) / 1000 : null;
}
function sendTiming() {
  if (sent) return;
  sent = true;
  var navigation = null;
  try { navigation = performance.getEntriesByType('navigation')[0] || null; } catch (e) { /* none */ }
  post({
    kind: 'timing',
    page: String(location.href),
    timeOrigin: round(performance.timeOrigin),
    responseStart: navigation ? round(navigation.responseStart, true) : null,
    domContentLoaded: navigation ? round(navigation.domContentLoadedEventEnd) : null,
    load: navigation ? round(navigation.loadEventEnd) : null,
    firstPaint: firstPaint,
    firstContentfulPaint: firstContentfulPaint,
  });
}
// The paint entries (this world's own `performance`: the page's overrides do not reach it).
function readPaint(entries) {
  for (var i = 0; i < entries.length; i++) {
    if (entries[i].name === 'first-paint' && firstPaint === null) firstPaint = round(entries[i].startTime);
    if (entries[i].name === 'first-contentful-paint' && firstContentfulPaint === null) {
      firstContentfulPaint = round(entries[i].startTime);
    }
  }
}
// The report is not urgent: it leaves a moment after the page has loaded and painted, so its
// message (and the app's decoding of it) never competes with the page's first frames or with
// the app learning that the load finished. A page that goes away before sends it at once.
var reportDelay = 250;
function painted() {
  if (!sent) setTimeout(sendTiming, reportDelay);
}
function loadEnded() {
  // loadEventEnd is set once the load handlers have run.
  loaded = true;
  try { readPaint(performance.getEntriesByType('paint')); } catch (e) { /* no paint timing */ }
  if (firstContentfulPaint !== null) return painted();
  // Not painted yet: wait for the entry (buffered: one that lands meanwhile is not missed).
  try {
    var observer = new PerformanceObserver(function (list) {
      readPaint(list.getEntries());
      if (firstContentfulPaint !== null) { observer.disconnect(); painted(); }
    });
    observer.observe({ type: 'paint', buffered: true });
  } catch (e) { /* no paint timing: the load alone is sent */ }
  setTimeout(sendTiming, 10000);
}
if (recordsTiming) {
  window.addEventListener('load', function () { setTimeout(loadEnded, 0); });
}
