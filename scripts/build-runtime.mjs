#!/usr/bin/env node
// Assembles the page scripts HybridKit injects (Sources/<module>/Resources/*.js) from their
// source modules in runtime/src (docs/page-runtime.md).
//
//   node scripts/build-runtime.mjs            writes the resources
//   node scripts/build-runtime.mjs --out DIR  writes them into DIR instead (scripts/check-runtime.sh)
//
// Each script has an entry module (runtime/src/<script>/main.js) holding its IIFE; a line
// `// @include PATH` in a module is replaced by the module at PATH (relative to the including
// file), every line indented as the directive is. A module is included at most once per script;
// including it twice, a missing module, two modules of one script declaring the same top-level
// name (function or var), or a script that does not parse fail the build. The output depends on nothing but the sources: no dates,
// no absolute paths, LF line ends, one final newline.
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sourceRoot = join(root, 'runtime', 'src');

/** The injected scripts: the resource's file name, its entry module, and the Swift module whose
 * bundle ships it (the bridge's runtime and transport in HybridBridge, the request proxy's in
 * HybridNetwork, the rest in HybridCore). */
export const scripts = [
  { output: 'hybrid.js', entry: 'hybrid/main.js', module: 'HybridBridge' },
  { output: 'hybrid-transport.js', entry: 'transport/main.js', module: 'HybridBridge' },
  { output: 'hybrid-proxy.js', entry: 'proxy/main.js', module: 'HybridNetwork' },
  { output: 'hybrid-prefetch.js', entry: 'prefetch/main.js', module: 'HybridCore' },
  { output: 'hybrid-health.js', entry: 'health/main.js', module: 'HybridCore' },
  { output: 'hybrid-restore.js', entry: 'restore/main.js', module: 'HybridCore' },
  { output: 'hybrid-prerender.js', entry: 'prerender/main.js', module: 'HybridCore' },
  { output: 'hybrid-speculation.js', entry: 'speculation/main.js', module: 'HybridCore' },
];

/** Where the shipped resource of `script` lives. */
export function resourcePath(script) { return join(root, 'Sources', script.module, 'Resources', script.output); }

const INCLUDE = /^([ \t]*)\/\/ @include (\S+)[ \t]*$/;

function posix(path) { return path.split('\\').join('/'); }

/** The script assembled from `entry` (relative to `from`), and the modules it is made of. */
export function assemble(entry, from = sourceRoot) {
  const used = [];
  const text = expand(from, join(from, entry), '', used, []);
  return { text, modules: used };
}

function expand(from, file, indent, used, chain) {
  const name = posix(relative(from, file));
  if (used.includes(name)) {
    throw new Error(`${[...chain, name].join(' -> ')}: ${name} is included twice`);
  }
  used.push(name);
  let source;
  try { source = readFileSync(file, 'utf8'); } catch (e) {
    throw new Error(`${chain.join(' -> ') || 'entry'}: cannot read ${name}`);
  }
  const lines = source.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n');
  const out = [];
  for (const line of lines) {
    const include = INCLUDE.exec(line);
    if (include) {
      out.push(expand(from, resolve(dirname(file), include[2]), indent + include[1], used, [...chain, name]));
    } else {
      out.push(line.length ? indent + line.replace(/[ \t]+$/, '') : '');
    }
  }
  return out.join('\n');
}

/**
 * The names declared twice at the top level of one script's IIFE (two spaces in): a second
 * function silently replaces the first, a second `var` silently shares it.
 */
function duplicateDeclarations(text) {
  const names = new Map();
  for (const match of text.matchAll(/^ {2}(?:function|var) ([A-Za-z_$][\w$]*)/gm)) {
    names.set(match[1], (names.get(match[1]) || 0) + 1);
  }
  return [...names].filter(([, count]) => count > 1).map(([name]) => name);
}

/** The resource text for `script`: a header naming its sources, then the assembled modules. */
export function build(script, from = sourceRoot) {
  const { text, modules } = assemble(script.entry, from);
  const twice = duplicateDeclarations(text);
  if (twice.length) throw new Error(`${script.output}: declared twice at the top level: ${twice.join(', ')}`);
  // Parsed, not run: a syntax error fails the build instead of the page.
  try { new vm.Script(text, { filename: script.output }); } catch (e) {
    throw new Error(`${script.output}: ${e.message} (${modules.join(', ')})`);
  }
  const header = [
    '// GENERATED FILE, do not edit: scripts/build-runtime.mjs assembled it from these modules of',
    ...wrap(modules.join(', ') + '.', '//   ', 100),
    '// Edit them and run `make runtime` (docs/page-runtime.md).',
  ];
  return header.join('\n') + '\n' + text + '\n';
}

/** `text` in lines of at most `width` characters after `prefix`, broken at spaces. */
function wrap(text, prefix, width) {
  const lines = [];
  let current = '';
  for (const word of text.split(' ')) {
    if (current && current.length + 1 + word.length > width) { lines.push(prefix + current); current = word; }
    else current = current ? current + ' ' + word : word;
  }
  if (current) lines.push(prefix + current);
  return lines;
}

function main(args) {
  let outDir = null;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--out' && i + 1 < args.length) outDir = resolve(args[++i]);
    else { console.error(`usage: node scripts/build-runtime.mjs [--out DIR]`); process.exit(2); }
  }
  if (outDir) mkdirSync(outDir, { recursive: true });
  for (const script of scripts) {
    const file = outDir ? join(outDir, script.output) : resourcePath(script);
    const text = build(script);
    // An unchanged resource is left alone: a rewrite would make SwiftPM copy it again (and fail a
    // build running meanwhile with "modified during the build").
    if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
    writeFileSync(file, text);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try { main(process.argv.slice(2)); } catch (e) {
    console.error(`build-runtime: ${e.message}`);
    process.exit(1);
  }
}
