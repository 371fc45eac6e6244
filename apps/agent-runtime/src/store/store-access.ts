import { Inject, Injectable } from '@nestjs/common';
import { forbidden, notFound } from '#libs/domain';
import {
  CUSTOM_AUTH,
  matchesFilters,
  type AuthContext,
  type AuthFilters,
  type CustomAuth,
} from '../auth/custom-auth.js';

export type StoreAction = 'put' | 'get' | 'search' | 'delete' | 'list_namespaces';

/** What the application's handler allowed: the value as it may have rewritten it, and filters. */
export interface StoreGrant<Value> {
  readonly value: Value;
  readonly filters: AuthFilters | undefined;
}

/** An item is matched against its value's fields, its namespace and its key. */
export function storeItemMatches(
  item: { namespace: string[]; key?: string; value?: Record<string, unknown> | null },
  filters: AuthFilters | undefined,
): boolean {
  return matchesFilters(
    {
      ...(item.value ?? {}),
      namespace: item.namespace,
      ...(item.key === undefined ? {} : { key: item.key }),
    },
    filters,
  );
}

/**
 * The application's `Auth` handlers for `store:*`: a handler may refuse, rewrite the namespace
 * (`value.namespace = [user, ...value.namespace]`, the usual way to keep each user's memories
 * apart) or return filters that items must pass. Requests of the platform are not filtered.
 */
@Injectable()
export class StoreAccess {
  constructor(@Inject(CUSTOM_AUTH) private readonly auth: CustomAuth | null) {}

  async authorize<Value extends Record<string, unknown>>(
    who: AuthContext | undefined,
    action: StoreAction,
    value: Value,
  ): Promise<StoreGrant<Value>> {
    if (!this.auth || !who) return { value, filters: undefined };
    const mutable = { ...value };
    const filters = await this.auth.authorize(who, 'store', action, mutable);
    return { value: mutable, filters };
  }

  /** A write to an item the filters exclude: someone else's is "not found", a new one forbidden. */
  requireWritable(
    existing: { namespace: string[]; key: string; value: Record<string, unknown> } | null,
    target: { namespace: string[]; key: string; value?: Record<string, unknown> },
    filters: AuthFilters | undefined,
  ): void {
    if (!filters) return;
    if (existing && !storeItemMatches(existing, filters)) throw notFound('Item not found');
    if (!storeItemMatches(target, filters)) throw forbidden('Not authorized');
  }
}
