import type { ValidationIssue } from '#libs/http';

/** Field names other deploy clients use, with the interface's name for each, per body section. */
export const FIELD_ALIASES: readonly {
  readonly section: readonly string[];
  readonly alias: string;
  readonly name: string;
}[] = [
  {
    section: ['source_revision_config'],
    alias: 'langgraph_config_path',
    name: 'graph_config_path',
  },
  {
    section: ['source_config', 'listener_config'],
    alias: 'k8s_namespace',
    name: 'cluster_namespace',
  },
];

/** Values other deploy clients use, with the interface's value for each. */
export const VALUE_ALIASES: Readonly<Record<string, string>> = {
  github: 'git_host',
  internal_docker: 'internal_container',
  external_docker: 'external_container',
  kubernetes: 'cluster',
};

/** Body fields whose values may be given by an alias. */
const VALUE_FIELDS: readonly (readonly string[])[] = [
  ['source'],
  ['revision_source'],
  ['compute_type'],
];

export interface CanonicalBody {
  readonly body: unknown;
  readonly conflicts: ValidationIssue[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The record at `path` in a copy being rewritten, copied on the way so the input stays untouched. */
function writableAt(
  root: Record<string, unknown>,
  path: readonly string[],
): Record<string, unknown> | null {
  let current = root;
  for (const key of path) {
    const next = current[key];
    if (!isRecord(next)) return null;
    const copy = { ...next };
    current[key] = copy;
    current = copy;
  }
  return current;
}

/**
 * A deployment body with the product-named aliases replaced by the interface's names.
 * Both names given with different values is a conflict the caller answers 422.
 */
export function canonicalizeAliases(body: unknown): CanonicalBody {
  if (!isRecord(body)) return { body, conflicts: [] };
  const result: Record<string, unknown> = { ...body };
  const conflicts: ValidationIssue[] = [];
  for (const { section, alias, name } of FIELD_ALIASES) {
    const target = writableAt(result, section);
    if (!target || !(alias in target)) continue;
    const aliased = target[alias];
    Reflect.deleteProperty(target, alias);
    if (target[name] === undefined || target[name] === null) {
      target[name] = aliased;
    } else if (aliased !== null && aliased !== undefined && aliased !== target[name]) {
      conflicts.push({
        loc: ['body', ...section, alias],
        msg: `${alias} is another name for ${name}; they were given different values`,
        type: 'value_error.alias_conflict',
      });
    }
  }
  for (const path of VALUE_FIELDS) {
    const target = writableAt(result, path.slice(0, -1));
    const field = path[path.length - 1];
    if (!target || field === undefined) continue;
    const value = target[field];
    if (typeof value === 'string' && Object.hasOwn(VALUE_ALIASES, value)) {
      target[field] = VALUE_ALIASES[value];
    }
  }
  return { body: result, conflicts };
}
