import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AuthFilters } from '../auth/custom-auth.js';
import { StoreAccess, storeItemMatches } from './store-access.js';
import { requireValidNamespace } from './store-namespace.js';
import type * as Requests from './store.dto.js';
import type { StoreItem } from './store-item-record.js';
import { StoreService, type StoreItemFilter } from './store.service.js';

/** With auth filters, namespace listings look through at most this many for the page. */
const FILTERED_SCAN_LIMIT = 10_000;

/** The application's auth filters as the store's visibility test, when there are filters. */
function visibleTo(filters: AuthFilters | undefined): { visible?: StoreItemFilter } {
  return filters ? { visible: (item) => storeItemMatches(item, filters) } : {};
}

/**
 * The store API's reads: each namespace checked, the application's Auth handler asked (it may
 * rewrite the request or add filters), then the store read within what it allows. Writes are
 * the commands in put-item/ and delete-item/.
 */
@Injectable()
export class StoreRequests {
  constructor(
    @Inject(StoreService) private readonly store: StoreService,
    @Inject(StoreAccess) private readonly access: StoreAccess,
  ) {}

  async get(query: Requests.GetStoreItemQuery, request: FastifyRequest): Promise<StoreItem | null> {
    const namespace = query.namespace ? query.namespace.split('.') : [];
    requireValidNamespace(namespace, ['query', 'namespace']);
    const { value: asked, filters } = await this.access.authorize(request.berthAuth, 'get', {
      namespace,
      key: query.key,
    });
    requireValidNamespace(asked.namespace, ['query', 'namespace']);
    return this.store.get(asked.namespace, asked.key, {
      ...(query.refresh_ttl === undefined ? {} : { refreshTtl: query.refresh_ttl }),
      ...visibleTo(filters),
    });
  }

  async search(
    body: Requests.SearchStoreItemsDto,
    request: FastifyRequest,
  ): Promise<{ items: StoreItem[] }> {
    const prefix = body.namespace_prefix ?? [];
    requireValidNamespace(prefix, ['body', 'namespace_prefix'], { allowEmpty: true });
    const limit = body.limit ?? 10;
    const offset = body.offset ?? 0;
    const { value: asked, filters } = await this.access.authorize(request.berthAuth, 'search', {
      namespace: prefix,
      filter: body.filter ?? null,
      limit,
      offset,
      query: body.query ?? null,
    });
    requireValidNamespace(asked.namespace, ['body', 'namespace_prefix'], { allowEmpty: true });
    return {
      items: await this.store.search({
        namespacePrefix: asked.namespace,
        ...(body.filter ? { filter: body.filter } : {}),
        ...(body.query ? { query: body.query } : {}),
        ...(body.refresh_ttl === undefined ? {} : { refreshTtl: body.refresh_ttl }),
        limit,
        offset,
        ...visibleTo(filters),
      }),
    };
  }

  async namespaces(
    body: Requests.ListNamespacesDto,
    request: FastifyRequest,
  ): Promise<{ namespaces: string[][] }> {
    const check = (labels: string[] | undefined, field: string): void => {
      requireValidNamespace(labels ?? [], ['body', field], { allowEmpty: true });
    };
    check(body.prefix, 'prefix');
    check(body.suffix, 'suffix');
    const limit = body.limit ?? 100;
    const offset = body.offset ?? 0;
    const { value: asked, filters } = await this.access.authorize(
      request.berthAuth,
      'list_namespaces',
      {
        namespace: body.prefix ?? [],
        suffix: body.suffix ?? null,
        max_depth: body.max_depth ?? null,
        limit,
        offset,
      },
    );
    check(asked.namespace, 'prefix');
    const match = {
      ...(asked.namespace.length ? { prefix: asked.namespace } : {}),
      ...(body.suffix?.length ? { suffix: body.suffix } : {}),
      ...(body.max_depth === undefined ? {} : { maxDepth: body.max_depth }),
    };
    if (!filters) return { namespaces: await this.store.namespaces({ ...match, limit, offset }) };
    const scanned = await this.store.namespaces({
      ...match,
      limit: FILTERED_SCAN_LIMIT,
      offset: 0,
    });
    const allowed = scanned.filter((namespace) => storeItemMatches({ namespace }, filters));
    return { namespaces: allowed.slice(offset, offset + limit) };
  }
}
