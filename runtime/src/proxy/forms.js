// ---- form POST -------------------------------------------------------------------------
function formBody(form, submitter) {
  var data = submitter ? new FormData(form, submitter) : new FormData(form);
  var enctype = ((submitter && submitter.getAttribute('formenctype')) || form.enctype || '').toLowerCase();
  if (enctype === 'multipart/form-data') return data;
  if (enctype === 'text/plain') {
    var lines = '';
    data.forEach(function (value, name) { lines += name + '=' + (typeof value === 'string' ? value : value.name) + '\r\n'; });
    return new Blob([lines], { type: 'text/plain;charset=UTF-8' });
  }
  var params = new URLSearchParams();
  data.forEach(function (value, name) { params.append(name, typeof value === 'string' ? value : value.name); });
  return params;
}
function submitForm(form, submitter) {
  var method = ((submitter && submitter.getAttribute('formmethod')) || form.getAttribute('method') || 'get').toLowerCase();
  var target = (submitter && submitter.getAttribute('formtarget')) || form.getAttribute('target') || '';
  if (method !== 'post' || (target && target !== '_self')) return false;
  var url = proxiedURL((submitter && submitter.hasAttribute('formaction')) ? submitter.formAction : form.action);
  if (!url) return false;
  var prepared = prepareBody(formBody(form, submitter));
  var warn = function (error) {
    try { console.warn('HybridKit proxy: form POST to ' + url.href + ' failed: ' + (error && error.message)); } catch (e) { /* ignore */ }
  };
  prepared.read().then(function (bytes) {
    transmit({ url: url.href, method: 'POST', headers: prepared.type ? [['Content-Type', prepared.type]] : [],
      body: bytes.byteLength ? bytes : null, mode: 'navigate', credentials: 'include',
      referrer: document.URL },
      { head: function () {}, chunk: function () {}, end: function () {}, fail: warn }, null, 'submit');
  }).catch(warn);
  return true;
}
if (config.forms) {
  // Bubbling on window: the page's own submit handlers run first and may cancel.
  window.addEventListener('submit', function (event) {
    if (event.defaultPrevented || !(event.target instanceof HTMLFormElement)) return;
    if (submitForm(event.target, event.submitter || null)) event.preventDefault();
  });
  var nativeSubmit = HTMLFormElement.prototype.submit;
  HTMLFormElement.prototype.submit = function submit() {
    if (!submitForm(this, null)) nativeSubmit.call(this);
  };
}
