import 'reflect-metadata';
import { RequestMethod, type DynamicModule } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';

export interface Route {
  readonly method: string;
  /** With Nest's `:name` parameters, e.g. `/threads/:threadId/runs`. */
  readonly path: string;
  /**
   * What the route speaks beyond plain JSON with `{detail}` errors (the fuzz sends it bodies in
   * that language and holds it to that language's error rule; see `robustness/fuzz.ts`).
   */
  readonly speaks?: 'protocol-commands' | 'protocol-events' | 'json-rpc';
  /** Headers every request to the route carries; `:name` values are known ids, as in the path. */
  readonly headers?: Readonly<Record<string, string>>;
}

function pathsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

function join(...parts: string[]): string {
  const joined = parts
    .flatMap((part) => part.split('/'))
    .filter((segment) => segment !== '')
    .join('/');
  return `/${joined}`;
}

/** A controller class, as Nest's router reads it. */
type ControllerClass = abstract new (...args: never[]) => unknown;

/** What a module class declares with @Module. */
function declared(moduleClass: unknown, key: 'controllers' | 'imports'): unknown[] {
  if (typeof moduleClass !== 'function') return [];
  return (Reflect.getMetadata(key, moduleClass) as unknown[] | undefined) ?? [];
}

/** A module's controllers, and those of the modules it imports, each once. */
function controllersOf(module: unknown, seen = new Set<unknown>()): unknown[] {
  if (module === null || module === undefined || seen.has(module)) return [];
  seen.add(module);
  const dynamic = typeof module === 'object' ? (module as Partial<DynamicModule>) : undefined;
  const moduleClass = dynamic ? dynamic.module : module;
  const controllers = [...(dynamic?.controllers ?? []), ...declared(moduleClass, 'controllers')];
  const imports = [...(dynamic?.imports ?? []), ...declared(moduleClass, 'imports')];
  return [...controllers, ...imports.flatMap((imported) => controllersOf(imported, seen))];
}

/**
 * Every route of a module's controllers and of the modules it imports, read from the metadata
 * Nest's router is built from: a route added to a controller is in this list without anyone
 * editing a test.
 */
export function routesOf(module: Pick<DynamicModule, 'controllers' | 'imports'>): Route[] {
  const routes: Route[] = [];
  for (const controller of new Set(controllersOf(module)) as Set<ControllerClass>) {
    const prefixes = pathsOf(Reflect.getMetadata(PATH_METADATA, controller));
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const paths = pathsOf(Reflect.getMetadata(PATH_METADATA, handler));
      const method: unknown = Reflect.getMetadata(METHOD_METADATA, handler);
      if (paths.length === 0 || typeof method !== 'number') continue;
      for (const prefix of prefixes.length ? prefixes : ['']) {
        for (const path of paths) {
          routes.push({
            method: RequestMethod[method] ?? String(method),
            path: join(prefix, path),
          });
        }
      }
    }
  }
  return routes;
}
