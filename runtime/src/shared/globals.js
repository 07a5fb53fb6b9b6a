// Provides: takeGlobal(name) -> the value of window[name], deleted from the window (the
// container's settings for a script, set just before it: no page script ever sees them).
function takeGlobal(name) {
  var value = window[name];
  try { delete window[name]; } catch (e) { /* non-configurable: ignore */ }
  return value;
}
