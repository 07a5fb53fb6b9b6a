// hybrid.d.ts against hybrid.js: the declarations parsed with the TypeScript compiler's API
// (Debian's node-typescript), compared with `window.hybrid` as the shipped runtime makes it in a
// fake page; and `tsc` compiling a page that uses the API (runtime/types/usage.ts, strict).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { makePage, resource, root, sources } from './harness.mjs';

const TYPESCRIPT = '/usr/share/nodejs/typescript';
const require = createRequire(import.meta.url);

function typescript() {
  assert.ok(existsSync(TYPESCRIPT), `the TypeScript compiler is missing: install node-typescript (scripts/bootstrap.sh)`);
  return require(TYPESCRIPT);
}

/** The declarations of hybrid.d.ts: interfaces (members) and type aliases (string literals). */
function declarations() {
  const ts = typescript();
  const file = ts.createSourceFile('hybrid.d.ts', resource('hybrid.d.ts'), ts.ScriptTarget.Latest, true);
  const interfaces = new Map();
  const literals = new Map();
  const visit = (node) => {
    if (ts.isInterfaceDeclaration(node)) {
      const members = interfaces.get(node.name.text) || new Map();
      for (const member of node.members) {
        if (!member.name || !ts.isIdentifier(member.name)) continue;
        const name = member.name.text;
        const readonly = !!(member.modifiers || []).some((m) => m.kind === ts.SyntaxKind.ReadonlyKeyword);
        const entry = members.get(name) || { kind: ts.isMethodSignature(member) ? 'method' : 'property', readonly, arities: [] };
        if (ts.isMethodSignature(member)) entry.arities.push(member.parameters.length);
        if (ts.isPropertySignature(member) && member.type && ts.isLiteralTypeNode(member.type)) entry.literal = member.type.literal.text;
        members.set(name, entry);
      }
      interfaces.set(node.name.text, members);
    }
    if (ts.isTypeAliasDeclaration(node)) {
      const found = new Set();
      const collect = (type) => {
        if (ts.isUnionTypeNode(type)) type.types.forEach(collect);
        else if (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)) found.add(type.literal.text);
        else if (ts.isTypeReferenceNode(type) && literals.has(type.typeName.text)) literals.get(type.typeName.text).forEach((l) => found.add(l));
      };
      collect(node.type);
      literals.set(node.name.text, found);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { interfaces, literals };
}

function runtimeObject() {
  const page = makePage();
  page.window.__hybridkitBoot = {};
  page.inject('hybrid.js');
  return page.window;
}

/** What window.hybrid has: each own key as a method (with its arity), a getter or a value. */
function runtimeMembers(api) {
  const members = new Map();
  for (const name of Object.getOwnPropertyNames(api)) {
    const d = Object.getOwnPropertyDescriptor(api, name);
    if (d.get) members.set(name, { kind: 'getter', settable: !!d.set });
    else if (typeof d.value === 'function') members.set(name, { kind: 'method', arity: d.value.length });
    else members.set(name, { kind: 'value', writable: d.writable });
  }
  return members;
}

// Keys of window.hybrid that are the runtime's own business, not the page's API.
const INTERNAL = /^__/;

test('every member hybrid.d.ts declares on Hybrid is on window.hybrid, of the same kind and arity', () => {
  const declared = declarations().interfaces.get('Hybrid');
  assert.ok(declared && declared.size > 0, 'interface Hybrid is declared');
  const actual = runtimeMembers(runtimeObject().hybrid);
  for (const [name, d] of declared) {
    const a = actual.get(name);
    assert.ok(a, `hybrid.d.ts declares ${name}, hybrid.js has no such member`);
    if (d.kind === 'method') {
      assert.equal(a.kind, 'method', `${name} is declared a method`);
      assert.equal(a.arity, Math.max(...d.arities), `${name} takes ${Math.max(...d.arities)} parameters in hybrid.d.ts, ${a.arity} in hybrid.js`);
    } else {
      assert.equal(d.readonly, true, `${name}: window.hybrid is frozen, so hybrid.d.ts must say readonly`);
      assert.notEqual(a.kind, 'method', `${name} is declared a property`);
      if (a.kind === 'getter') assert.equal(a.settable, false, `${name} has a setter`);
    }
  }
});

test('everything window.hybrid offers a page is declared in hybrid.d.ts', () => {
  const declared = declarations().interfaces.get('Hybrid');
  const undeclared = [...runtimeMembers(runtimeObject().hybrid).keys()].filter((name) => !INTERNAL.test(name) && !declared.has(name));
  assert.deepEqual(undeclared, []);
});

test('window.hybrid is read-only as the Window declaration says', () => {
  const window = runtimeObject();
  const declared = declarations().interfaces.get('Window').get('hybrid');
  assert.equal(declared.readonly, true);
  const d = Object.getOwnPropertyDescriptor(window, 'hybrid');
  assert.equal(d.writable, false);
  assert.equal(Object.isFrozen(window.hybrid), true);
});

test("the getters' values are of the declared kinds before ready", async () => {
  const api = runtimeObject().hybrid;
  assert.ok(api.ready instanceof Promise);
  assert.equal(typeof api.version, 'string');
  assert.equal(typeof api.runtimeVersion, 'string');
  assert.equal(typeof api.capabilities, 'object');
  assert.ok(Array.isArray(api.modules));
  assert.ok(['event', 'url'].includes(api.transport));
  assert.equal(typeof api.pendingCount, 'number');
  assert.match(resource('hybrid.d.ts'), new RegExp(`runtime version ${api.runtimeVersion.replace(/\./g, '\\.')}\\.`), 'the header names the runtime version');
});

test('a HybridError has the members the HybridError interface declares, and its name', async () => {
  const declared = declarations().interfaces.get('HybridError');
  const error = await runtimeObject().hybrid.call('', '').catch((e) => e);
  assert.equal(error.name, declared.get('name').literal);
  for (const name of Object.keys(error)) assert.ok(declared.has(name), `HybridError has ${name}, hybrid.d.ts does not declare it`);
  for (const name of ['code', 'message']) assert.equal(typeof error[name], 'string', name);
});

/** The string literals `pattern` captures in the modules of `folder` (runtime/src/FOLDER). */
function codesIn(folders, pattern) {
  const codes = new Set();
  for (const folder of folders) {
    for (const file of readdirSync(join(sources, folder)).filter((f) => f.endsWith('.js'))) {
      for (const match of readFileSync(join(sources, folder, file), 'utf8').matchAll(pattern)) codes.add(match[1] ?? match[0]);
    }
  }
  return [...codes].sort();
}

test('every error code the runtime raises is one HybridErrorCode names', () => {
  const declared = declarations().literals.get('HybridErrorCode');
  const raised = codesIn(['hybrid', 'shared'], /HybridError\('([a-z_]+)'/g);
  // Codes chosen first and raised by name: `var code = status === 413 ? 'payload_too_large' : ...`.
  const chosen = codesIn(['hybrid'], /var code = [^;]*/g).flatMap((line) => [...line.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]));
  assert.ok(raised.length >= 5 && chosen.length >= 3, `found the raised codes (${raised}; ${chosen})`);
  for (const code of [...raised, ...chosen]) assert.ok(declared.has(code), `hybrid.js raises ${code}, HybridErrorCode does not name it`);
});

test('every code the request proxy fails with in the page is one ProxyErrorCode names', () => {
  const declared = declarations().literals.get('ProxyErrorCode');
  const raised = codesIn(['proxy'], /failure\('([a-z_]+)'/g);
  assert.ok(raised.length >= 2, `found the proxy's codes (${raised})`);
  for (const code of raised) assert.ok(declared.has(code), `hybrid-proxy.js fails with ${code}, ProxyErrorCode does not name it`);
});

test('tsc compiles a strict page that uses the API, and refuses the misuses it marks', () => {
  typescript();
  try {
    execFileSync('tsc', ['-p', join(root, 'runtime', 'types')], { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    assert.fail(`tsc -p runtime/types:\n${e.stdout || ''}${e.stderr || ''}${e.message}`);
  }
});
