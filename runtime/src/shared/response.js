// Provides: NULL_BODY_STATUS (the statuses whose response has no body: Fetch's "null body
// status"), headersFrom(pairs) -> Headers of the container's [name, value] pairs (a pair the
// engine refuses is left out).
var NULL_BODY_STATUS = [101, 103, 204, 205, 304];
function headersFrom(pairs) {
  var headers = new Headers();
  pairs.forEach(function (pair) { try { headers.append(pair[0], pair[1]); } catch (e) { /* skip */ } });
  return headers;
}
