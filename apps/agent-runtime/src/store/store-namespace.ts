import { uuid5 } from '../common/uuid5.js';
import { ValidationFailedError } from '#libs/http';

/** Derives the uuid of an item from its namespace and key. */
const STORE_ITEM_NAMESPACE = 'c1f3a3e8-2d6b-5b8e-9a51-6f0d2b7e4c11';

/** Labels are joined with dots on the wire (`GET /store/items?namespace=a.b`), so none may hold one. */
function namespaceProblem(namespace: readonly unknown[]): string | undefined {
  for (const label of namespace) {
    if (typeof label !== 'string') return 'Namespace labels must be strings';
    if (label === '') return 'Namespace labels cannot be empty';
    if (label.includes('.')) return `Namespace labels cannot contain periods ('.'): "${label}"`;
  }
  return undefined;
}

/** 422 with the rule, naming where in the request the namespace was. */
export function requireValidNamespace(
  namespace: readonly unknown[],
  loc: readonly (string | number)[],
  options: { allowEmpty?: boolean } = {},
): void {
  const problem =
    namespace.length === 0 && !options.allowEmpty
      ? 'The namespace must have at least one label'
      : namespaceProblem(namespace);
  if (problem)
    throw new ValidationFailedError([{ loc: [...loc], msg: problem, type: 'value_error' }]);
}

export function namespacePath(namespace: readonly string[]): string {
  return namespace.join('.');
}

export function storeItemId(namespace: readonly string[], key: string): string {
  return uuid5(JSON.stringify([namespace, key]), STORE_ITEM_NAMESPACE);
}

/** Writes to one namespace go to one stream, so a batch of puts in a namespace is one append. */
export function storeStream(namespace: readonly string[]): string {
  return `store-${namespacePath(namespace)}`;
}
