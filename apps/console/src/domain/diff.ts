export type Change =
  | { readonly path: string; readonly kind: 'added'; readonly after: unknown }
  | { readonly path: string; readonly kind: 'removed'; readonly before: unknown }
  | {
      readonly path: string;
      readonly kind: 'changed';
      readonly before: unknown;
      readonly after: unknown;
    };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Leaves of a JSON value by dotted path; arrays and empty objects are leaves. */
export function flatten(value: unknown, prefix = ''): Map<string, unknown> {
  const leaves = new Map<string, unknown>();
  if (!isRecord(value) || (Object.keys(value).length === 0 && prefix !== '')) {
    if (prefix !== '') leaves.set(prefix, value);
    return leaves;
  }
  for (const [key, child] of Object.entries(value)) {
    for (const [path, leaf] of flatten(child, prefix ? `${prefix}.${key}` : key)) {
      leaves.set(path, leaf);
    }
  }
  return leaves;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** What differs between two JSON values, leaf by leaf, in path order. */
export function diffValues(before: unknown, after: unknown): Change[] {
  const left = flatten(before);
  const right = flatten(after);
  const paths = [...new Set([...left.keys(), ...right.keys()])].sort();
  const changes: Change[] = [];
  for (const path of paths) {
    const had = left.has(path);
    const has = right.has(path);
    if (had && !has) changes.push({ path, kind: 'removed', before: left.get(path) });
    else if (!had && has) changes.push({ path, kind: 'added', after: right.get(path) });
    else if (!same(left.get(path), right.get(path))) {
      changes.push({ path, kind: 'changed', before: left.get(path), after: right.get(path) });
    }
  }
  return changes;
}

/** A JSON value on one line, for a cell. */
export function shortJson(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined ? 'undefined' : JSON.stringify(value);
}
