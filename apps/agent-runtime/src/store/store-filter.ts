import { ValidationFailedError } from '#libs/http';

/** The operators of the SDK's store filter; a plain value means `$eq`. */
const OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin'] as const;
type Operator = (typeof OPERATORS)[number];

const COMPARISONS: Record<'$gt' | '$gte' | '$lt' | '$lte', string> = {
  $gt: '>',
  $gte: '>=',
  $lt: '<',
  $lte: '<=',
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isOperatorObject = (value: unknown): value is Record<Operator, unknown> =>
  isRecord(value) &&
  Object.keys(value).length > 0 &&
  Object.keys(value).every((key) => key.startsWith('$'));

const isScalar = (value: unknown): boolean =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** `{a: {b: value}}` for the path `a.b`. */
function nested(path: readonly string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

/** SQL conditions on `value` (jsonb), with their parameters numbered from `firstParam`. */
export interface CompiledFilter {
  readonly conditions: string[];
  readonly params: unknown[];
}

function invalid(loc: string[], msg: string): never {
  throw new ValidationFailedError([{ loc: ['body', 'filter', ...loc], msg, type: 'value_error' }]);
}

/**
 * Turns a store filter into SQL on the item's value: `{field: value}` is JSON equality;
 * `{field: {$op: operand}}` compares (numbers as numbers, strings as strings), `$in`/`$nin`
 * test membership. A field is a top-level key of the value, or a dotted path into it.
 */
export function compileStoreFilter(
  filter: Record<string, unknown> | undefined,
  firstParam: number,
): CompiledFilter {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${firstParam + params.length - 1}`;
  };
  for (const [field, condition] of Object.entries(filter ?? {})) {
    if (field === '') invalid([field], 'Filter fields cannot be empty');
    const path = field.split('.');
    const equalTo = isOperatorObject(condition) ? undefined : { value: condition };
    if (equalTo && isScalar(equalTo.value)) {
      // For a scalar, containment is equality, and the GIN index on `value` answers it.
      conditions.push(`value @> ${param(JSON.stringify(nested(path, equalTo.value)))}::jsonb`);
      continue;
    }
    const target = `(value #> ${param(path)}::text[])`;
    if (equalTo || !isOperatorObject(condition)) {
      conditions.push(`${target} = ${param(JSON.stringify(condition))}::jsonb`);
      continue;
    }
    for (const [operator, operand] of Object.entries(condition)) {
      conditions.push(operatorCondition(target, operator, operand, [field, operator], param));
    }
  }
  return { conditions, params };
}

function operatorCondition(
  target: string,
  operator: string,
  operand: unknown,
  loc: string[],
  param: (value: unknown) => string,
): string {
  switch (operator) {
    case '$eq':
      return `${target} = ${param(JSON.stringify(operand))}::jsonb`;
    case '$ne':
      return `${target} is distinct from ${param(JSON.stringify(operand))}::jsonb`;
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      const sign = COMPARISONS[operator];
      if (typeof operand === 'number' && Number.isFinite(operand)) {
        return `(case when jsonb_typeof(${target}) = 'number' then (${target})::numeric ${sign} ${param(operand)}::numeric else false end)`;
      }
      if (typeof operand === 'string') {
        return `(case when jsonb_typeof(${target}) = 'string' then (${target} #>> '{}') ${sign} ${param(operand)}::text collate "C" else false end)`;
      }
      return invalid(loc, `${operator} compares with a number or a string`);
    }
    case '$in':
    case '$nin': {
      if (!Array.isArray(operand)) return invalid(loc, `${operator} takes an array`);
      const member = `${target} in (select jsonb_array_elements(${param(JSON.stringify(operand))}::jsonb))`;
      return operator === '$in' ? `coalesce(${member}, false)` : `not coalesce(${member}, false)`;
    }
    default:
      return invalid(loc, `Unknown operator ${operator}: use one of ${OPERATORS.join(', ')}`);
  }
}
