// scripts/build-runtime.mjs: the resources are what the modules make, deterministically, each
// one script in one IIFE; the assembler refuses what would silently change a script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assemble, build, scripts } from '../../scripts/build-runtime.mjs';
import { resource } from './harness.mjs';

function tree(files) {
  const dir = mkdtempSync(join(tmpdir(), 'runtime-src-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

test('the checked-in resources are exactly what the modules build (run `make runtime` after editing runtime/src)', () => {
  for (const script of scripts) assert.equal(resource(script.output), build(script), script.output);
});

test('building twice gives the same bytes', () => {
  for (const script of scripts) assert.equal(build(script), build(script));
});

test('each resource says it is generated and from which modules, then is one IIFE in strict mode', () => {
  const endings = { 'hybrid-transport.js': '})(__HYBRIDKIT_TRANSPORT_CONFIG__);', 'hybrid-health.js': '})(!window.__hybridkitHealthErrorsOnly);' };
  for (const script of scripts) {
    const text = resource(script.output);
    assert.match(text, /^\/\/ GENERATED FILE, do not edit: scripts\/build-runtime\.mjs/);
    assert.ok(text.includes(script.entry), `${script.output} names ${script.entry}`);
    const lines = text.split('\n');
    const open = lines.findIndex((l) => /^\(function \(\w*\) \{$/.test(l));
    assert.ok(open > 0, `${script.output} opens an IIFE`);
    assert.equal(lines[open + 1], "  'use strict';", `${script.output} is strict from its first statement`);
    assert.ok(lines.slice(0, open).every((l) => l.startsWith('//')), `${script.output}: only comments before the IIFE`);
    assert.equal(lines.at(-2), endings[script.output] || '})();');
    assert.equal(lines.at(-1), '', 'one final newline');
    assert.ok(!/\r|[ \t]$/m.test(text), 'LF line ends, no trailing blanks');
    assert.ok(!text.includes('// @include'), 'every include is expanded');
  }
});

test('a shared helper is written once per script, in every script that uses it', () => {
  const count = (text, what) => text.split(what).length - 1;
  for (const name of ['hybrid.js', 'hybrid-proxy.js']) {
    assert.equal(count(resource(name), 'function toBase64('), 1, name);
    assert.equal(count(resource(name), 'function fromBase64('), 1, name);
    assert.equal(count(resource(name), 'function headersFrom('), 1, name);
  }
  for (const name of ['hybrid.js', 'hybrid-transport.js']) assert.equal(count(resource(name), 'function eventSender('), 1, name);
  for (const name of ['hybrid.js', 'hybrid-proxy.js', 'hybrid-prefetch.js']) assert.equal(count(resource(name), 'function takeGlobal('), 1, name);
});

test('an include is indented as its directive, relative to the including module', () => {
  const dir = tree({
    'a/main.js': "(function () {\n  'use strict';\n  // @include ../lib/x.js\n})();\n",
    'lib/x.js': 'function x() {\n  return 1;\n}\n\n// @include y.js\n',
    'lib/y.js': 'var y = 2;   \n',
  });
  const { text, modules } = assemble('a/main.js', dir);
  assert.equal(text, "(function () {\n  'use strict';\n  function x() {\n    return 1;\n  }\n\n  var y = 2;\n})();");
  assert.deepEqual(modules, ['a/main.js', 'lib/x.js', 'lib/y.js']);
});

test('a module included twice, a missing one, a name declared twice or a syntax error fails the build', () => {
  const twice = tree({ 'main.js': '(function () {\n  // @include x.js\n  // @include x.js\n})();\n', 'x.js': 'var x;\n' });
  assert.throws(() => assemble('main.js', twice), /x\.js is included twice/);
  const missing = tree({ 'main.js': '(function () {\n  // @include nowhere.js\n})();\n' });
  assert.throws(() => assemble('main.js', missing), /cannot read nowhere\.js/);
  const clash = tree({ 'main.js': '(function () {\n  // @include x.js\n  function helper() {}\n})();\n', 'x.js': 'function helper() {}\n' });
  assert.throws(() => build({ output: 'x.js', entry: 'main.js' }, clash), /declared twice at the top level: helper/);
  const vars = tree({ 'main.js': '(function () {\n  // @include x.js\n  var state = 1;\n})();\n', 'x.js': 'var state = 0;\n' });
  assert.throws(() => build({ output: 'x.js', entry: 'main.js' }, vars), /declared twice at the top level: state/);
  const broken = tree({ 'main.js': '(function () {\n  // @include x.js\n})();\n', 'x.js': 'if (\n' });
  assert.throws(() => build({ output: 'x.js', entry: 'main.js' }, broken), /x\.js: Unexpected token .*main\.js, x\.js/);
});
