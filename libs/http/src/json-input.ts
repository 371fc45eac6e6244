import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationFailedError, type ValidationIssue } from './validation-failed.error.js';

/** Deeper JSON is refused: nothing legitimate nests this far, and validators recurse. */
export const MAX_JSON_DEPTH = 100;

/** The largest `offset` a list takes: beyond it, numbers lose precision (and PostgreSQL's bigint ends). */
export const MAX_PAGE_OFFSET = Number.MAX_SAFE_INTEGER;

/** A lone surrogate, which no UTF-8 text (and so no PostgreSQL text or jsonb) can hold. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

type Loc = (string | number)[];

/** Why PostgreSQL would refuse this string, or undefined when it can store it. */
function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'must not contain an unpaired surrogate (\\ud800-\\udfff)';
  return undefined;
}

/**
 * The issues of a parsed JSON value, walked without recursion: strings and keys PostgreSQL cannot
 * store, and nesting deeper than MAX_JSON_DEPTH (reported once, at the first place it happens).
 */
export function jsonInputIssues(value: unknown, root: Loc): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const pending: [unknown, Loc][] = [[value, root]];
  while (pending.length > 0) {
    const [current, loc] = pending.pop() as [unknown, Loc];
    if (typeof current === 'string') {
      const msg = unstorable(current);
      if (msg) issues.push({ loc, msg, type: 'string_unicode' });
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (loc.length - root.length >= MAX_JSON_DEPTH) {
      return [
        { loc, msg: `must not nest deeper than ${MAX_JSON_DEPTH} levels`, type: 'json_depth' },
      ];
    }
    for (const [key, item] of Object.entries(current)) {
      const step = Array.isArray(current) ? Number(key) : key;
      const msg = Array.isArray(current) ? undefined : unstorable(key);
      if (msg) issues.push({ loc: [...loc, step], msg: `a key ${msg}`, type: 'string_unicode' });
      pending.push([item, [...loc, step]]);
    }
  }
  return issues;
}

function whyNotJson(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return `The body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  return 'The body must not hold a __proto__ key or a constructor.prototype';
}

class BadJson extends Error {
  readonly statusCode = 400;
}

/**
 * JSON bodies as the apps accept them, and no other kind (register other parsers after this): an empty body is no body (many clients send the JSON
 * content type on every request), prototype poisoning is refused, and so is what PostgreSQL cannot
 * store or validators cannot walk (see jsonInputIssues). Query strings and path parameters are held
 * to the same rule about strings.
 */
export interface JsonInputOptions {
  /** What a request with a body of another type is told (415); by default, to send JSON. */
  readonly unsupportedType?: (request: FastifyRequest, contentType: string) => string;
}

/** The default answer to a body that is not JSON. */
export const askForJson = (_request: FastifyRequest, contentType: string): string =>
  `Content-Type ${contentType} is not accepted: send JSON with Content-Type application/json`;

class UnsupportedMediaType extends Error {
  readonly statusCode = 415;
}

export function registerJsonInput(fastify: FastifyInstance, options: JsonInputOptions = {}): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  // JSON only: a text/plain body would reach the validators as a string (415 instead).
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    (request: FastifyRequest, body: string | Buffer, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') {
        done(null, undefined);
        return;
      }
      void parseJson(request, text, (error, parsed: unknown) => {
        if (error) {
          done(new BadJson(whyNotJson(text)), undefined);
          return;
        }
        const issues = jsonInputIssues(parsed, ['body']);
        if (issues.length > 0) done(new ValidationFailedError(issues), undefined);
        else done(null, parsed);
      });
    },
  );
  fastify.addContentTypeParser('*', (request: FastifyRequest, payload, done) => {
    payload.resume();
    const contentType = request.headers['content-type'] ?? '';
    done(new UnsupportedMediaType((options.unsupportedType ?? askForJson)(request, contentType)));
  });
  fastify.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    const issues = [
      ...jsonInputIssues(request.query, ['query']),
      ...jsonInputIssues(request.params, ['path']),
    ];
    done(issues.length > 0 ? new ValidationFailedError(issues) : undefined);
  });
}
