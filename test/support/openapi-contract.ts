import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Route } from './nest-routes.js';

type Schema = Record<string, unknown>;
interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** One answer seen on the wire. */
export interface Exchange {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: unknown;
}

function toOpenApiPath(nestPath: string): string {
  return nestPath.replace(/:(\w+)/g, '{$1}');
}

/** A served OpenAPI document, and checks of routes and real answers against it. */
export class OpenApiContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly templates: { template: string; pattern: RegExp; params: number }[];

  constructor(readonly document: OpenApiDocument) {
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.templates = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
        params: (template.match(/\{/g) ?? []).length,
      }))
      // A literal segment wins over a parameter: /threads/search is not /threads/{threadId}.
      .sort((a, b) => a.params - b.params);
  }

  static async fetch(baseUrl: string): Promise<OpenApiContract> {
    const response = await fetch(`${baseUrl}/openapi.json`);
    if (response.status !== 200) throw new Error(`/openapi.json answered ${response.status}`);
    return new OpenApiContract((await response.json()) as OpenApiDocument);
  }

  /** What makes the document invalid OpenAPI, if anything. */
  async documentErrors(): Promise<unknown[]> {
    const result = await new Validator().validate(
      structuredClone(this.document) as unknown as Parameters<Validator['validate']>[0],
    );
    return result.valid ? [] : ([] as unknown[]).concat(result.errors ?? 'invalid');
  }

  /** Routes of the router that the document lacks, or that declare no success answer. */
  undocumented(routes: readonly Route[]): string[] {
    return routes
      .filter((route) => {
        const operation =
          this.document.paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()];
        const statuses = Object.keys(operation?.responses ?? {});
        return !statuses.some((status) => /^[23]\d\d$/.test(status));
      })
      .map((route) => `${route.method} ${route.path}`);
  }

  /** Why an answer does not match the schema its route declares for its status, if it does not. */
  mismatches(exchange: Exchange): string[] {
    const template = this.templates.find(({ pattern }) => pattern.test(exchange.path))?.template;
    const operation = template
      ? this.document.paths[template]?.[exchange.method.toLowerCase()]
      : undefined;
    const where = `${exchange.method} ${exchange.path} ${exchange.status}`;
    if (!operation) return [`${where}: no such operation in the document`];
    const declared =
      operation.responses?.[String(exchange.status)] ??
      operation.responses?.[`${String(exchange.status)[0]}XX`];
    if (!declared) return [`${where}: status not declared`];
    const mediaType = exchange.contentType.split(';')[0]?.trim() ?? '';
    if (!declared.content) return exchange.body === undefined ? [] : [`${where}: declares no body`];
    const media = declared.content[mediaType];
    if (!media) return [`${where}: ${mediaType} not declared`];
    if (mediaType !== 'application/json' || !media.schema) return [];
    const validate = this.ajv.compile({ ...media.schema, components: this.document.components });
    if (validate(exchange.body)) return [];
    return (validate.errors ?? []).map(
      (error) => `${where}: ${error.instancePath || '/'} ${error.message ?? ''}`,
    );
  }
}

/** A fetch that records every JSON or SSE answer it gets, for checking against the document. */
export function recordingFetch(exchanges: Exchange[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (
      init?.method ?? (input instanceof Request ? input.method : 'GET')
    ).toUpperCase();
    const contentType = response.headers.get('content-type') ?? '';
    if (contentType.startsWith('application/json')) {
      const text = await response.clone().text();
      exchanges.push({
        method,
        path: url.pathname,
        status: response.status,
        contentType,
        body: text ? (JSON.parse(text) as unknown) : undefined,
      });
    } else {
      exchanges.push({
        method,
        path: url.pathname,
        status: response.status,
        contentType,
        body: undefined,
      });
    }
    return response;
  };
}
