import { dirname, join } from 'node:path';
import ts from 'typescript';
import {
  compiledGraphType,
  isOverwriteWrapper,
  schemasOfGraphType,
  type GraphSchemas,
} from './graph-types.js';
import { subgraphNodesOf } from './subgraph-nodes.js';
import { TypeSchemaWriter } from './type-schema.js';

/** One graph of the application: the export of a file. */
export interface GraphSource {
  readonly graphId: string;
  readonly file: string;
  readonly exportName: string;
}

/**
 * Each graph's schemas by namespace: `''` for the graph itself, `a` and `a|b` for the graphs
 * its node `a` runs and their own (the namespaces LangGraph gives subgraphs).
 */
export type SourceSchemas = Record<string, Record<string, GraphSchemas>>;

/** Root of the namespaces of a graph: the graph itself. */
export const ROOT_NAMESPACE = '';

/**
 * The schemas the graphs' TypeScript (or JavaScript) source declares, read with the TypeScript
 * compiler: one program over every graph file, with the application's tsconfig when it has one.
 * A graph whose export is not typed as a LangGraph graph is left out.
 */
export function extractSourceSchemas(
  graphs: readonly GraphSource[],
  applicationDir: string,
): SourceSchemas {
  const program = ts.createProgram({
    rootNames: [...new Set(graphs.map((graph) => graph.file))],
    options: compilerOptions(applicationDir),
  });
  const checker = program.getTypeChecker();
  const writer = new TypeSchemaWriter(program, checker, { omitMember: isOverwriteWrapper });
  const schemas: SourceSchemas = {};
  for (const graph of graphs) {
    try {
      const found = graphSchemas(program, checker, writer, graph);
      if (found) schemas[graph.graphId] = found;
    } catch {
      // A graph whose types cannot be read keeps the schemas its runtime objects give.
    }
  }
  return schemas;
}

function graphSchemas(
  program: ts.Program,
  checker: ts.TypeChecker,
  writer: TypeSchemaWriter,
  graph: GraphSource,
): Record<string, GraphSchemas> | undefined {
  const sourceFile = program.getSourceFile(graph.file);
  const module = sourceFile && checker.getSymbolAtLocation(sourceFile);
  if (!module) return undefined;
  const exported = checker
    .getExportsOfModule(module)
    .find((symbol) => symbol.getName() === graph.exportName);
  if (!exported) return undefined;
  const symbol =
    exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  const compiled = declaration && compiledGraphType(checker, checker.getTypeOfSymbol(symbol));
  if (!declaration || !compiled) return undefined;

  const byNamespace: Record<string, GraphSchemas> = {
    [ROOT_NAMESPACE]: schemasOfGraphType(checker, writer, compiled),
  };
  const visit = (node: ts.Node, namespace: readonly string[], depth: number): void => {
    if (depth > 8) return;
    for (const subgraph of subgraphNodesOf(checker, node)) {
      const type = compiledGraphType(checker, checker.getTypeAtLocation(subgraph.graph));
      if (!type) continue;
      const path = [...namespace, subgraph.name];
      byNamespace[path.join('|')] ??= schemasOfGraphType(checker, writer, type);
      visit(subgraph.graph, path, depth + 1);
    }
  };
  visit(declaration, [], 0);
  return byNamespace;
}

/**
 * The application's compiler options (the tsconfig.json next to its configuration, as tsx uses), set
 * to read sources as tsx runs them: any module syntax, `.ts` imports, JavaScript included, with
 * strict null checks so that `null` and optional keys are seen.
 */
function compilerOptions(applicationDir: string): ts.CompilerOptions {
  let options: ts.CompilerOptions = {};
  const tsconfig = join(applicationDir, 'tsconfig.json');
  if (ts.sys.fileExists(tsconfig)) {
    const read = ts.readConfigFile(tsconfig, (file) => ts.sys.readFile(file));
    if (!read.error) {
      options = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(tsconfig)).options;
    }
  }
  return {
    target: ts.ScriptTarget.ES2022,
    ...options,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    allowJs: true,
    resolveJsonModule: true,
    esModuleInterop: true,
    strictNullChecks: true,
    skipLibCheck: true,
    noEmit: true,
    types: options.types ?? [],
  };
}
