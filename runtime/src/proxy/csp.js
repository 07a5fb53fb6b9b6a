// ---- the document's Content Security Policy --------------------------------------------
// The decision is native (ContentSecurityPolicy.swift): it has the policies of the document's
// response headers, and this script hands it the `<meta http-equiv="Content-Security-Policy">`
// policies as they appear (a meta policy only adds restrictions, so each is sent once and never
// withdrawn). What comes back is reported as the engine reports it: a
// `securitypolicyviolation` event on the document for every violation, enforced or report-only.
var sentMeta = [];
function flushMetaPolicies() {
  if (!window.hybrid || !document.head) return;
  var found = [];
  var metas = document.head.querySelectorAll('meta[http-equiv]');
  for (var i = 0; i < metas.length; i++) {
    var meta = metas[i];
    // CSP3 §3.3: only a meta child of head, with a content attribute, makes a policy.
    if (meta.parentNode !== document.head || String(meta.httpEquiv).toLowerCase() !== 'content-security-policy') continue;
    var content = meta.getAttribute('content');
    if (!content || sentMeta.indexOf(content) >= 0) continue;
    sentMeta.push(content);
    found.push(content);
  }
  if (found.length) window.hybrid.call('proxy', 'csp', { policies: found }).catch(function () { /* reported natively */ });
}
try {
  new MutationObserver(flushMetaPolicies).observe(document, { childList: true, subtree: true });
} catch (e) { /* no observer: every request flushes */ }
document.addEventListener('DOMContentLoaded', flushMetaPolicies);

function reportViolation(v) {
  if (!v) return;
  var init = { bubbles: true, composed: true, cancelable: false, documentURI: document.URL,
    referrer: document.referrer, blockedURI: v.blockedURI, violatedDirective: v.violatedDirective,
    effectiveDirective: v.effectiveDirective, originalPolicy: v.originalPolicy, disposition: v.disposition,
    sourceFile: '', sample: '', statusCode: 200, lineNumber: 0, columnNumber: 0 };
  var event;
  try {
    event = new SecurityPolicyViolationEvent('securitypolicyviolation', init);
  } catch (e) {
    event = new Event('securitypolicyviolation', { bubbles: true, composed: true });
    Object.keys(init).forEach(function (name) { if (!(name in event)) event[name] = init[name]; });
  }
  document.dispatchEvent(event);
}
// A request the document's policy or mixed-content blocking refused, a body that failed its
// integrity check, or an only-if-cached request with nothing stored: the engine's own network
// error, which says nothing more.
function isPolicyRefusal(error) {
  return !!error && (error.code === 'csp_denied' || error.code === 'mixed_content' || error.code === 'integrity_mismatch' ||
    error.code === 'not_cached');
}
