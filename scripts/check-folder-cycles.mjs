// Lint step: no import cycles between the folders of an app or a lib (apps/<app>/src/<folder>,
// libs/<lib>/src/<folder>). Files at an src root (main, modules, config) are the composition root
// and may import any folder; specs and testing/ helpers are left out. Prints each cycle with the
// imports that make it, and exits 1 when there is one.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const isTestOnly = (file) => /\.spec\.tsx?$/.test(file) || file.split(sep).includes('testing');

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `apps/x/src/folder` for a file in a folder under an src root; undefined at the root itself. */
function folderOf(file) {
  const parts = relative(root, file).split(sep);
  return parts.length > 4 ? parts.slice(0, 4).join('/') : undefined;
}

function resolveImport(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((path) => existsSync(path));
}

const edges = new Map();
for (const top of ['apps', 'libs']) {
  for (const file of sourceFiles(join(root, top)).filter((path) => !isTestOnly(path))) {
    const from = folderOf(file);
    if (!from) continue;
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      const target = resolveImport(file, fileName);
      const to = target && folderOf(target);
      if (!to || to === from) continue;
      const reasons = edges.get(from)?.get(to) ?? [];
      reasons.push(`${relative(root, file)} -> ${relative(root, target)}`);
      edges.set(from, (edges.get(from) ?? new Map()).set(to, reasons));
    }
  }
}

/** Tarjan's strongly connected components; each with more than one folder is a cycle. */
function cycles() {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const found = [];
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    for (const to of edges.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (stack.includes(to)) {
        low.set(node, Math.min(low.get(node), index.get(to)));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

const found = cycles();
for (const component of found) {
  console.error(`folder cycle: ${component.join(' <-> ')}`);
  for (const from of component) {
    for (const [to, reasons] of edges.get(from) ?? []) {
      if (component.includes(to)) console.error(`  ${reasons.join('\n  ')}`);
    }
  }
}
if (found.length > 0) process.exit(1);
console.log('no folder cycles');
