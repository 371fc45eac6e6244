// Lint step: one dependency-injection style. Every constructor parameter of a Nest class (an
// @Injectable, @Controller or @CommandHandler) names its token with @Inject, as the runtime always
// has: what a class receives is read from its code, not from emitted type metadata. Prints each
// parameter that does not, and exits 1 when there is one.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const NEST_CLASS = /^(Injectable|Controller|CommandHandler)\b/;

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return ['node_modules', 'testing', 'console'].includes(entry.name) ? [] : sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.(spec|d)\.ts$/.test(entry.name) ? [path] : [];
  });
}

const findings = [];
for (const file of ['apps', 'libs'].flatMap((top) => sourceFiles(join(root, top)))) {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const visit = (node) => {
    const decorators = ts.canHaveDecorators(node) ? (ts.getDecorators(node) ?? []) : [];
    const isNestClass =
      ts.isClassDeclaration(node) &&
      decorators.some((decorator) => NEST_CLASS.test(decorator.expression.getText(source)));
    if (isNestClass) {
      for (const member of node.members.filter(ts.isConstructorDeclaration)) {
        for (const parameter of member.parameters) {
          if ((ts.getDecorators(parameter) ?? []).length > 0) continue;
          const { line } = source.getLineAndCharacterOfPosition(parameter.getStart(source));
          findings.push(
            `${relative(root, file)}:${line + 1}: ${parameter.name.getText(source)} has no @Inject token`,
          );
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
for (const finding of findings) console.error(finding);
if (findings.length > 0) process.exit(1);
console.log('every injected parameter names its token');
