import { afterAll, expect } from '@jest/globals';

/** The methods of an SDK sub-client (its prototype's functions). */
export function methodsOf(subClient: object): string[] {
  const prototype = Object.getPrototypeOf(subClient) as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype)
    .filter((name) => name !== 'constructor' && typeof prototype[name] === 'function')
    .sort();
}

/**
 * The sub-client, recording which of its methods a test file calls; after the file, the suite
 * fails naming every method no test called.
 */
export function everyMethodCovered<T extends object>(getSubClient: () => T): () => T {
  const called = new Set<string>();
  let expected: string[] | undefined;
  let proxy: T | undefined;
  afterAll(() => {
    const missing = (expected ?? []).filter((name) => !called.has(name));
    expect(missing).toEqual([]);
  });
  return () => {
    if (!proxy) {
      const subClient = getSubClient();
      expected = methodsOf(subClient);
      proxy = new Proxy(subClient, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver) as unknown;
          if (typeof property === 'string' && typeof value === 'function') {
            called.add(property);
            return (value as (...args: unknown[]) => unknown).bind(target);
          }
          return value;
        },
      });
    }
    return proxy;
  };
}
