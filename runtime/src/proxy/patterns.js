// ---- URL patterns: the semantics of ConfigURLPattern --------------------------------------
function escapeRE(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }
var defaultPorts = { http: 80, https: 443, ws: 80, wss: 443 };
function compile(text) {
  if (text === '*') return function () { return true; };
  var sep = text.indexOf('://');
  if (sep < 0) return function () { return false; };
  var scheme = text.slice(0, sep).toLowerCase();
  var rest = text.slice(sep + 3);
  var slash = rest.indexOf('/');
  var authority = (slash < 0 ? rest : rest.slice(0, slash)).toLowerCase();
  var path = slash < 0 ? '/*' : rest.slice(slash);
  var port = null;
  var colon = authority.lastIndexOf(':');
  if (colon >= 0 && authority.charAt(authority.length - 1) !== ']') {
    var portText = authority.slice(colon + 1);
    port = portText === '*' ? null : Number(portText);
    authority = authority.slice(0, colon);
  }
  if (authority.slice(-1) === '.') authority = authority.slice(0, -1);
  var pathRE = new RegExp('^' + path.split('*').map(escapeRE).join('[\\s\\S]*') + '$');
  return function (url) {
    var urlScheme = url.protocol.slice(0, -1).toLowerCase();
    if (scheme !== '*' && scheme !== urlScheme) return false;
    var host = url.hostname.toLowerCase();
    if (host.slice(-1) === '.') host = host.slice(0, -1);
    if (authority.indexOf('*.') === 0) {
      var domain = authority.slice(2);
      if (host !== domain && host.slice(-(domain.length + 1)) !== '.' + domain) return false;
    } else if (authority !== '*' && host !== authority) {
      return false;
    }
    if (port !== null && (url.port ? Number(url.port) : defaultPorts[urlScheme]) !== port) return false;
    return pathRE.test(url.pathname || '/');
  };
}
