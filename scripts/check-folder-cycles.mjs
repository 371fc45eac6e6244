// Lint step: no import cycles between the folders of an app or a lib (apps/<app>/src/<folder>,
// libs/<lib>/src/<folder>), nor between libs (`#libs/<lib>` imports); and the layers' direction:
// domain code (a `domain/` folder, deciders, a decider's decide/evolve files, workflows) loads no
// framework, libs never import apps, apps never import each other, and only a module or the
// composition root imports a controller. Files at an src root (main, modules, config) are the
// composition root and may import any folder; specs and testing/ helpers are left out. Prints each finding with the
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

/** `libs/<lib>` for a `#libs/<lib>` import, or for a file of that lib. */
function libOf(specifierOrFile) {
  const match = /^#libs\/([^/]+)/.exec(specifierOrFile);
  if (match) return `libs/${match[1]}`;
  const parts = relative(root, specifierOrFile).split(sep);
  return parts[0] === 'libs' ? `libs/${parts[1]}` : undefined;
}

const FRAMEWORKS = /^(@nestjs\/|typeorm$|pg$|fastify$|@fastify\/|express$)/;
const isDomainCode = (file) =>
  file.split(sep).includes('domain') ||
  /\.(decider|decide|evolve)\.ts$|[-.]workflow\.ts$/.test(file);
const isController = (file) => /\.controller\.ts$/.test(file);
const mayImportControllers = (file) => /\.module\.ts$/.test(file) || folderOf(file) === undefined;

const layerFindings = [];
function checkLayers(file, specifier, target) {
  const at = relative(root, file);
  if (isDomainCode(file) && FRAMEWORKS.test(specifier)) {
    layerFindings.push(`domain code loads a framework: ${at} -> ${specifier}`);
  }
  if (at.startsWith('libs/') && target && relative(root, target).startsWith('apps/')) {
    layerFindings.push(`a lib imports an app: ${at} -> ${relative(root, target)}`);
  }
  const appOf = (path) => /^apps\/[^/]+/.exec(relative(root, path))?.[0];
  if (target && appOf(file) && appOf(target) && appOf(file) !== appOf(target)) {
    layerFindings.push(`an app imports another app: ${at} -> ${relative(root, target)}`);
  }
  if (target && isController(target) && !isController(file) && !mayImportControllers(file)) {
    layerFindings.push(`a feature imports a controller: ${at} -> ${relative(root, target)}`);
  }
  if (target && isController(target) && isController(file)) {
    layerFindings.push(`a controller imports a controller: ${at} -> ${relative(root, target)}`);
  }
}

function resolveImport(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((path) => existsSync(path));
}

const edges = new Map();
function addEdge(from, to, reason) {
  const reasons = edges.get(from)?.get(to) ?? [];
  reasons.push(reason);
  edges.set(from, (edges.get(from) ?? new Map()).set(to, reasons));
}

for (const top of ['apps', 'libs']) {
  for (const file of sourceFiles(join(root, top)).filter((path) => !isTestOnly(path))) {
    const from = folderOf(file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      const target = resolveImport(file, fileName);
      checkLayers(file, fileName, target);
      const fromLib = libOf(file);
      const toLib = fileName.startsWith('#libs/') ? libOf(fileName) : undefined;
      if (fromLib && toLib && fromLib !== toLib) {
        addEdge(fromLib, toLib, `${relative(root, file)} -> ${fileName}`);
      }
      const to = target && folderOf(target);
      if (!from || !to || to === from) continue;
      addEdge(from, to, `${relative(root, file)} -> ${relative(root, target)}`);
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
  console.error(`import cycle: ${component.join(' <-> ')}`);
  for (const from of component) {
    for (const [to, reasons] of edges.get(from) ?? []) {
      if (component.includes(to)) console.error(`  ${reasons.join('\n  ')}`);
    }
  }
}
for (const finding of layerFindings) console.error(finding);
if (found.length > 0 || layerFindings.length > 0) process.exit(1);
console.log('no folder cycles; the layers import one way');
