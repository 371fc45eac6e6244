import ts from 'typescript';

/** A node of a graph that runs another graph: its name and the expression of that graph. */
export interface SubgraphNode {
  readonly name: string;
  readonly graph: ts.Expression;
}

/**
 * The `addNode(name, graph)` calls that build the graph `expression` stands for, following the
 * builder chain back through the variables it names (`builder.compile()`, a factory's return),
 * and the statements that call `addNode` on those variables. A node whose action is a function
 * calling one graph (`(state) => other.invoke(state)`) counts as that graph.
 */
export function subgraphNodesOf(checker: ts.TypeChecker, expression: ts.Node): SubgraphNode[] {
  const calls = new Set<ts.CallExpression>();
  const followed = new Set<ts.Symbol>();

  const follow = (node: ts.Node | undefined): void => {
    if (node === undefined) return;
    if (ts.isCallExpression(node)) {
      if (isAddNodeCall(node)) calls.add(node);
      follow(node.expression);
    } else if (ts.isPropertyAccessExpression(node)) {
      follow(node.expression);
    } else if (
      ts.isParenthesizedExpression(node) ||
      ts.isAwaitExpression(node) ||
      ts.isAsExpression(node) ||
      ts.isSatisfiesExpression(node) ||
      ts.isNonNullExpression(node)
    ) {
      follow(node.expression);
    } else if (ts.isIdentifier(node)) {
      followSymbol(checker.getSymbolAtLocation(node));
    } else if (ts.isVariableDeclaration(node)) {
      follow(node.initializer);
    } else if (ts.isFunctionLike(node)) {
      for (const returned of returnedExpressions(node)) follow(returned);
    }
  };

  const followSymbol = (found: ts.Symbol | undefined): void => {
    const symbol =
      found && found.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(found) : found;
    if (!symbol || followed.has(symbol)) return;
    followed.add(symbol);
    const declaration = symbol.valueDeclaration;
    if (!declaration || declaration.getSourceFile().isDeclarationFile) return;
    follow(declaration);
    if (ts.isVariableDeclaration(declaration)) {
      for (const call of addNodeCallsOn(checker, symbol, declaration.getSourceFile())) {
        calls.add(call);
      }
    }
  };

  follow(expression);
  return [...calls]
    .sort((a, b) => a.getStart() - b.getStart())
    .flatMap((call) => {
      const [nameArgument, action] = call.arguments;
      if (!nameArgument || !ts.isStringLiteralLike(nameArgument) || !action) return [];
      const graph = graphExpressionOf(checker, action);
      return graph ? [{ name: nameArgument.text, graph }] : [];
    });
}

/** `<anything>.addNode("name", action)`. */
function isAddNodeCall(call: ts.CallExpression): boolean {
  return ts.isPropertyAccessExpression(call.expression) && call.expression.name.text === 'addNode';
}

/** The `addNode` calls in `file` made on the variable `symbol` (`builder.addNode(...)`). */
function addNodeCallsOn(
  checker: ts.TypeChecker,
  symbol: ts.Symbol,
  file: ts.SourceFile,
): ts.CallExpression[] {
  const found: ts.CallExpression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && isAddNodeCall(node) && receiverRoot(node) !== undefined) {
      const root = receiverRoot(node);
      if (root && checker.getSymbolAtLocation(root) === symbol) found.push(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The identifier a call chain starts from (`trunk` in `trunk.addNode(...).addEdge(...)`). */
function receiverRoot(call: ts.CallExpression): ts.Identifier | undefined {
  let node: ts.Expression = call.expression;
  for (;;) {
    if (ts.isPropertyAccessExpression(node) || ts.isCallExpression(node)) node = node.expression;
    else if (ts.isParenthesizedExpression(node)) node = node.expression;
    else return ts.isIdentifier(node) ? node : undefined;
  }
}

function returnedExpressions(node: ts.SignatureDeclaration): ts.Expression[] {
  const body = (node as { body?: ts.Node }).body;
  if (!body) return [];
  if (!ts.isBlock(body)) return [body as ts.Expression];
  const returned: ts.Expression[] = [];
  const visit = (child: ts.Node): void => {
    if (ts.isFunctionLike(child)) return;
    if (ts.isReturnStatement(child) && child.expression) returned.push(child.expression);
    ts.forEachChild(child, visit);
  };
  ts.forEachChild(body, visit);
  return returned;
}

function isGraphLike(type: ts.Type): boolean {
  return (
    type.getProperty('~InputType') !== undefined ||
    (type.getProperty('compile') !== undefined && type.getProperty('addNode') !== undefined)
  );
}

/** The graph a node's action is: itself, or the one graph a function action refers to. */
function graphExpressionOf(
  checker: ts.TypeChecker,
  action: ts.Expression,
): ts.Expression | undefined {
  const type = checker.getTypeAtLocation(action);
  if (!(type.flags & ts.TypeFlags.Any) && isGraphLike(type)) return action;
  if (!ts.isFunctionLike(action)) return undefined;
  const graphs = new Map<ts.Symbol, ts.Identifier>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const symbol = checker.getSymbolAtLocation(node);
      const identifierType = checker.getTypeAtLocation(node);
      if (symbol && !(identifierType.flags & ts.TypeFlags.Any) && isGraphLike(identifierType)) {
        graphs.set(symbol, node);
      }
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(action, visit);
  return graphs.size === 1 ? [...graphs.values()][0] : undefined;
}
