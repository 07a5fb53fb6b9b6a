// HybridKit speculation rules: the page side (page world, document end, main frame only, in the
// views of a WebViewPool whose PrerenderPolicy lets pages ask).
//
// The `prerender` list rules of the document's <script type="speculationrules"> (the standard's
// JSON: {"prerender": [{"source": "list", "urls": [...], "eagerness": ...}]}) present when the
// document was parsed are asked of the container (`prerender.request`); only `immediate` and
// `eager` rules (the default of a list rule is immediate), and only URLs of the document's own
// origin (resolved against its base URL, fragment dropped). A frame's rules are never read: the
// script runs in the main frame only. The container checks the origin again and its policy.
(function () {
  'use strict';
  if (window.top !== window || !window.hybrid) return;
  var here = location;
  var resolve = function (url) {
    try {
      var absolute = new URL(String(url), document.baseURI);
      absolute.hash = '';
      // Compared by scheme and host, not `origin` (a custom scheme's origin is "null").
      return absolute.protocol === here.protocol && absolute.host === here.host ? absolute.href : null;
    } catch (e) { return null; }
  };
  var urls = [];
  var scripts = document.querySelectorAll('script[type="speculationrules"]');
  for (var i = 0; i < scripts.length; i++) {
    var rules;
    try { rules = JSON.parse(scripts[i].textContent); } catch (e) { continue; }
    var prerender = rules && Array.isArray(rules.prerender) ? rules.prerender : [];
    prerender.forEach(function (rule) {
      if (!rule || typeof rule !== 'object' || !Array.isArray(rule.urls)) return;
      if (rule.source !== undefined && rule.source !== 'list') return;
      var eagerness = rule.eagerness === undefined ? 'immediate' : rule.eagerness;
      if (eagerness !== 'immediate' && eagerness !== 'eager') return;
      rule.urls.forEach(function (url) {
        var absolute = resolve(url);
        if (absolute && urls.indexOf(absolute) < 0) urls.push(absolute);
      });
    });
  }
  if (urls.length) window.hybrid.call('prerender', 'request', { urls: urls }).catch(function () { /* refused: nothing to do */ });
})();
