// HybridKit's WebDriver atoms: what `hybrid webdriver` runs in the page for each element command.
// Evaluated as the body of an async function with `command` and `args`, after a line native adds:
// `const __hybridWebDriverUser = …;`, the test's script for `execute` (a function of the frame's
// window that returns the script as a function, so its globals are the frame's and no `eval` is
// needed under a page's Content-Security-Policy), `null` otherwise. Returns
// `{ ok: true, value }` or `{ ok: false, error, message }` (error: a W3C error code, or
// 'unknown element' for an id this document never issued, which native turns into
// 'stale element reference' or 'no such element'). Element references live in a registry on the
// top window under a symbol (per document: a new document starts a new one).
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';
const FRAME = 'frame-075b-4da1-b6ba-e579c2d3230a';
const WINDOW = 'window-fcc6-11e5-b4f8-330a88ab9d7f';
const SYMBOL = Symbol.for('hybridkit.webdriver');

class Failure extends Error {
  constructor(error, message) { super(message); this.error = error; }
}

function registry() {
  let state = window[SYMBOL];
  if (!state) {
    const prefix = Math.random().toString(36).slice(2, 10) + Date.now().toString(36);
    state = { byId: new Map(), ids: new WeakMap(), prefix, next: 0 };
    Object.defineProperty(window, SYMBOL, { value: state, enumerable: false, configurable: false, writable: false });
  }
  return state;
}

function reference(element) {
  const state = registry();
  let id = state.ids.get(element);
  if (!id) {
    id = `${state.prefix}-${++state.next}`;
    state.ids.set(element, id);
    state.byId.set(id, element);
  }
  return id;
}

function isElement(value) {
  return value !== null && typeof value === 'object' && value.nodeType === 1 && typeof value.tagName === 'string';
}

function element(id) {
  const found = registry().byId.get(id);
  if (!found) throw new Failure('unknown element', id);
  const view = found.ownerDocument && found.ownerDocument.defaultView;
  if (!found.isConnected || !view) throw new Failure('stale element reference', `element ${id} is no longer attached to the page`);
  return found;
}

// The window the session's current frame shows: `frames` is the path of frame element ids from the top.
function context(frames) {
  let current = window;
  for (const id of frames) {
    let frameElement;
    try { frameElement = element(id); } catch (error) { throw new Failure('no such frame', `frame ${id} is gone`); }
    let inner = null;
    try { inner = frameElement.contentWindow; void inner.document.documentElement; } catch (error) {
      throw new Failure('no such frame', 'the frame is cross-origin: HybridKit reaches same-origin frames only (docs/testing.md)');
    }
    if (!inner) throw new Failure('no such frame', `frame ${id} shows no document`);
    current = inner;
  }
  return current;
}

function serialize(value, seen = new Set()) {
  if (value === undefined || value === null || typeof value === 'function' || typeof value === 'symbol') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'object') return value;
  if (isElement(value)) return { [ELEMENT]: reference(value) };
  if (value.window === value && value.document) return { [WINDOW]: 'current' };
  if (seen.has(value)) throw new Failure('javascript error', 'cyclic object value');
  seen.add(value);
  try {
    if (Array.isArray(value) || (typeof value.length === 'number' && typeof value.item === 'function')) {
      return Array.from(value, (item) => serialize(item, seen));
    }
    if (typeof value.toJSON === 'function') return serialize(value.toJSON(), seen);
    const out = {};
    for (const key of Object.keys(value)) out[key] = serialize(value[key], seen);
    return out;
  } finally {
    seen.delete(value);
  }
}

function deserialize(value) {
  if (Array.isArray(value)) return value.map(deserialize);
  if (value && typeof value === 'object') {
    if (typeof value[ELEMENT] === 'string') return element(value[ELEMENT]);
    const out = {};
    for (const key of Object.keys(value)) out[key] = deserialize(value[key]);
    return out;
  }
  return value;
}

function find(win, using, selector, rootId) {
  const root = rootId ? element(rootId) : win.document;
  const doc = win.document;
  switch (using) {
    case 'css selector':
      try { return Array.from(root.querySelectorAll(selector)); } catch (error) {
        throw new Failure('invalid selector', `${selector}: ${error.message}`);
      }
    case 'xpath': {
      let result;
      try { result = doc.evaluate(selector, root, null, 7 /* ORDERED_NODE_SNAPSHOT_TYPE */, null); } catch (error) {
        throw new Failure('invalid selector', `${selector}: ${error.message}`);
      }
      const found = [];
      for (let i = 0; i < result.snapshotLength; i++) {
        const node = result.snapshotItem(i);
        if (!isElement(node)) throw new Failure('invalid selector', `${selector} selects a node that is not an element`);
        found.push(node);
      }
      return found;
    }
    case 'link text':
    case 'partial link text':
      return Array.from(root.querySelectorAll('a')).filter((a) => {
        const text = visibleText(a);
        return using === 'link text' ? text === selector : text.includes(selector);
      });
    case 'tag name':
      return Array.from(root.getElementsByTagName(selector));
    default:
      throw new Failure('invalid argument', `unknown location strategy: ${using}`);
  }
}

function visibleText(el) {
  const text = typeof el.innerText === 'string' ? el.innerText : el.textContent || '';
  return text.replace(/\u00a0/g, ' ').replace(/[ \t]+\n/g, '\n').trim();
}

function isDisplayed(el) {
  if (el.tagName === 'OPTION' || el.tagName === 'OPTGROUP') {
    const select = el.closest('select, datalist');
    return select ? isDisplayed(select) : false;
  }
  if (el.tagName === 'INPUT' && el.type === 'hidden') return false;
  const view = el.ownerDocument.defaultView;
  for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
    const style = view.getComputedStyle(node);
    if (style.display === 'none') return false;
    if (node === el && (style.visibility === 'hidden' || style.visibility === 'collapse')) return false;
    if (Number(style.opacity) === 0) return false;
  }
  const rect = el.getBoundingClientRect();
  if (rect.width > 0 && rect.height > 0) return true;
  return Array.from(el.children).some((child) => isDisplayed(child));
}

function rect(el) {
  const box = el.getBoundingClientRect();
  const view = el.ownerDocument.defaultView;
  return { x: box.left + view.scrollX, y: box.top + view.scrollY, width: box.width, height: box.height };
}

const BOOLEAN_ATTRIBUTES = new Set(['allowfullscreen', 'async', 'autofocus', 'autoplay', 'checked', 'controls', 'default',
  'defer', 'disabled', 'formnovalidate', 'hidden', 'inert', 'ismap', 'itemscope', 'loop', 'multiple', 'muted', 'nomodule',
  'novalidate', 'open', 'playsinline', 'readonly', 'required', 'reversed', 'selected']);

function attribute(el, name) {
  if (!el.hasAttribute(name)) return null;
  return BOOLEAN_ATTRIBUTES.has(name.toLowerCase()) ? 'true' : el.getAttribute(name);
}

function interactable(el) {
  if (!isDisplayed(el)) throw new Failure('element not interactable', `<${el.tagName.toLowerCase()}> is not displayed`);
}

function center(el) {
  el.scrollIntoView({ block: 'center', inline: 'center' });
  const box = el.getBoundingClientRect();
  return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
}

function click(el) {
  const view = el.ownerDocument.defaultView;
  if (el.tagName === 'OPTION') {
    const select = el.closest('select');
    if (!select) return { navigates: false };
    el.selected = select.multiple ? !el.selected : true;
    select.dispatchEvent(new view.Event('input', { bubbles: true }));
    select.dispatchEvent(new view.Event('change', { bubbles: true }));
    return { navigates: false };
  }
  interactable(el);
  const point = center(el);
  const hit = el.ownerDocument.elementFromPoint(point.x, point.y);
  if (hit && hit !== el && !el.contains(hit) && !(hit.tagName === 'LABEL' && hit.control === el)) {
    const describe = (node) => `<${node.tagName.toLowerCase()}${node.id ? ` id="${node.id}"` : ''}>`;
    throw new Failure('element click intercepted', `${describe(el)} is covered by ${describe(hit)} at (${Math.round(point.x)}, ${Math.round(point.y)})`);
  }
  const target = hit || el;
  const init = { bubbles: true, cancelable: true, composed: true, view, clientX: point.x, clientY: point.y, button: 0, detail: 1 };
  const Pointer = view.PointerEvent || view.MouseEvent;
  target.dispatchEvent(new Pointer('pointerdown', { ...init, pointerId: 1, pointerType: 'mouse', isPrimary: true, buttons: 1 }));
  target.dispatchEvent(new view.MouseEvent('mousedown', { ...init, buttons: 1 }));
  if (typeof el.focus === 'function') el.focus({ preventScroll: true });
  target.dispatchEvent(new Pointer('pointerup', { ...init, pointerId: 1, pointerType: 'mouse', isPrimary: true }));
  target.dispatchEvent(new view.MouseEvent('mouseup', init));
  return activate(target, () => target.dispatchEvent(new view.MouseEvent('click', init)));
}

// Runs `action` (a click or an implicit submission) and says whether it will navigate the page:
// a followed link to another document, or a form submission nobody prevented (native then waits
// for the load, as the standard's click does).
function activate(node, action) {
  const view = node.ownerDocument.defaultView;
  let submitted = false;
  const onSubmit = (event) => { if (!event.defaultPrevented) submitted = true; };
  view.addEventListener('submit', onSubmit);
  let proceeded;
  try { proceeded = action(); } finally { view.removeEventListener('submit', onSubmit); }
  const link = node.closest ? node.closest('a[href]') : null;
  let followsLink = false;
  if (proceeded !== false && link && !link.hasAttribute('download') && (!link.target || link.target === '_self')) {
    const to = new view.URL(link.href, node.ownerDocument.baseURI);
    const here = new view.URL(node.ownerDocument.URL);
    followsLink = !/^javascript:/i.test(link.href) && !(to.hash && to.href.split('#')[0] === here.href.split('#')[0]);
  }
  return { navigates: submitted || followsLink };
}

const KEYS = { '\uE003': 'Backspace', '\uE004': 'Tab', '\uE006': 'Enter', '\uE007': 'Enter', '\uE00C': 'Escape' };

function isTextField(el) {
  return el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT' &&
    !['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file', 'hidden', 'range', 'color'].includes(el.type));
}

function insertText(el, text) {
  const doc = el.ownerDocument;
  if (doc.activeElement === el && doc.execCommand && doc.execCommand('insertText', false, text)) return;
  if (isTextField(el)) {
    const start = typeof el.selectionStart === 'number' ? el.selectionStart : el.value.length;
    const end = typeof el.selectionEnd === 'number' ? el.selectionEnd : el.value.length;
    const value = el.value;
    el.value = value.slice(0, start) + text + value.slice(end);
    try { el.setSelectionRange(start + text.length, start + text.length); } catch (error) { /* types without a selection */ }
  } else if (el.isContentEditable) {
    el.textContent += text;
  }
  el.dispatchEvent(new doc.defaultView.InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
}

function sendKeys(el, text) {
  const view = el.ownerDocument.defaultView;
  if (!isTextField(el) && !el.isContentEditable) interactable(el);
  if (el.disabled || el.readOnly) throw new Failure('invalid element state', `<${el.tagName.toLowerCase()}> is disabled or read-only`);
  if (typeof el.focus === 'function') el.focus();
  if (isTextField(el) && el.ownerDocument.activeElement === el && typeof el.value === 'string') {
    try { el.setSelectionRange(el.value.length, el.value.length); } catch (error) { /* types without a selection */ }
  }
  let navigates = false;
  for (const ch of Array.from(text)) {
    const key = KEYS[ch] || ch;
    if (ch >= '\uE000' && ch <= '\uF8FF' && !KEYS[ch]) continue;   // other special keys: not typed
    const init = { key, bubbles: true, cancelable: true, composed: true, view };
    const proceed = el.dispatchEvent(new view.KeyboardEvent('keydown', init));
    if (proceed) {
      if (key === 'Enter') {
        if (el.tagName === 'TEXTAREA' || el.isContentEditable) insertText(el, '\n');
        else if (el.form) navigates = activate(el, () => el.form.requestSubmit()).navigates || navigates;
      } else if (key === 'Backspace') {
        if (isTextField(el) && el.value.length) {
          el.value = el.value.slice(0, -1);
          el.dispatchEvent(new view.InputEvent('input', { bubbles: true, inputType: 'deleteContentBackward' }));
        }
      } else if (key.length === 1 || Array.from(key).length === 1) {
        el.dispatchEvent(new view.KeyboardEvent('keypress', init));
        insertText(el, key);
      }
    }
    el.dispatchEvent(new view.KeyboardEvent('keyup', init));
  }
  return { navigates };
}

function clear(el) {
  if (el.disabled || el.readOnly) throw new Failure('invalid element state', `<${el.tagName.toLowerCase()}> is disabled or read-only`);
  const view = el.ownerDocument.defaultView;
  if (isTextField(el)) {
    if (el.value === '') return;
    el.focus();
    el.value = '';
  } else if (el.isContentEditable) {
    el.focus();
    el.innerHTML = '';
  } else {
    throw new Failure('invalid element state', `<${el.tagName.toLowerCase()}> is not editable`);
  }
  el.dispatchEvent(new view.Event('input', { bubbles: true }));
  el.dispatchEvent(new view.Event('change', { bubbles: true }));
  el.blur();
}

async function run(command, args) {
  const win = context(args.frames || []);
  const el = () => element(args.id);
  switch (command) {
    case 'find': {
      const found = find(win, args.using, args.value, args.root);
      return found.map((node) => ({ [ELEMENT]: reference(node) }));
    }
    case 'active': {
      const active = win.document.activeElement || win.document.body;
      return active ? { [ELEMENT]: reference(active) } : null;
    }
    case 'frame': {
      if (typeof args.index === 'number') {
        const child = win.frames[args.index];
        if (!child || !child.frameElement) throw new Failure('no such frame', `no frame at index ${args.index}`);
        return reference(child.frameElement);
      }
      const frame = element(args.id);
      if (frame.tagName !== 'IFRAME' && frame.tagName !== 'FRAME') throw new Failure('no such frame', 'the element is not a frame');
      return reference(frame);
    }
    case 'execute': {
      const fn = __hybridWebDriverUser(win);
      const params = deserialize(args.args || []);
      const value = args.async
        ? await new Promise((resolve, reject) => {
            win.addEventListener('unload', () => reject(new Failure('javascript error', 'the document unloaded')), { once: true });
            fn.apply(win, params.concat([resolve]));
          })
        : await fn.apply(win, params);
      return serialize(value);
    }
    case 'title': return window.document.title;
    case 'source': return win.document.documentElement ? win.document.documentElement.outerHTML : '';
    case 'windowRect':
      return { x: window.screenX, y: window.screenY, width: window.outerWidth || window.innerWidth,
               height: window.outerHeight || window.innerHeight };
    case 'text': return visibleText(el());
    case 'name': return el().tagName.toLowerCase();
    case 'attribute': return attribute(el(), args.name);
    case 'property': return serialize(el()[args.name]);
    case 'css': return win.getComputedStyle(el()).getPropertyValue(args.name);
    case 'displayed': return isDisplayed(el());
    case 'enabled': return !el().matches(':disabled');
    case 'selected': { const node = el(); return !!(node.checked || node.selected); }
    case 'rect': return rect(el());
    case 'viewRect': {
      // The element's box in the top window's viewport, in CSS pixels, scrolled into view (screenshots).
      const node = el();
      node.scrollIntoView({ block: 'center', inline: 'center' });
      let box = node.getBoundingClientRect();
      let x = box.left, y = box.top;
      for (let frame = node.ownerDocument.defaultView; frame !== window && frame.frameElement; frame = frame.parent) {
        const outer = frame.frameElement.getBoundingClientRect();
        x += outer.left + frame.frameElement.clientLeft;
        y += outer.top + frame.frameElement.clientTop;
      }
      return { x, y, width: box.width, height: box.height, scale: window.devicePixelRatio || 1 };
    }
    case 'click': return click(el());
    case 'sendKeys': return sendKeys(el(), args.text);
    case 'clear': clear(el()); return null;
    default: throw new Failure('unknown command', command);
  }
}

try {
  return { ok: true, value: await run(command, args) };
} catch (error) {
  if (error instanceof Failure) return { ok: false, error: error.error, message: error.message };
  return { ok: false, error: 'javascript error', message: String(error && error.stack ? `${error}\n${error.stack}` : error) };
}
