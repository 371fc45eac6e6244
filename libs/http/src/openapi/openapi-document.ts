import type { INestApplication } from '@nestjs/common';
import {
  DocumentBuilder,
  SwaggerModule,
  type OpenAPIObject,
  type SchemaObject,
} from '@nestjs/swagger';
import { validatedDtoSchemas } from './dto-schemas.js';
import { addErrorResponses, COMMON_SCHEMAS } from './error-responses.js';
import { addQueryParameters } from './route-queries.js';

export interface OpenApiInfo {
  readonly title: string;
  readonly description: string;
  readonly version: string;
  /** Schemas of the responses, referenced from the routes' response decorators. */
  readonly responseSchemas: Readonly<Record<string, SchemaObject>>;
  /** Paths served without the API key. */
  readonly publicPaths: readonly string[];
  /** Paths served with or without it (the key shows more). */
  readonly openPaths?: readonly string[];
}

export const API_KEY_SCHEME = 'x-api-key';
/** Where the document and its browsable page are served, without the API key. */
export const OPENAPI_DOCUMENT_PATH = '/openapi.json';
export const OPENAPI_PAGE_PATH = '/docs';
export const OPENAPI_PUBLIC_PATHS = [
  OPENAPI_DOCUMENT_PATH,
  OPENAPI_PAGE_PATH,
  `${OPENAPI_PAGE_PATH}/*`,
];

function toOpenApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

/** The OpenAPI 3.1 document of an application's routes, from its controllers and DTOs. */
export function buildOpenApiDocument(app: INestApplication, info: OpenApiInfo): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle(info.title)
    .setDescription(info.description)
    .setVersion(info.version)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key' }, API_KEY_SCHEME)
    .addSecurityRequirements(API_KEY_SCHEME)
    .build();
  const document = SwaggerModule.createDocument(app, config);
  const dtoSchemas = validatedDtoSchemas();
  addQueryParameters(document, app, dtoSchemas);
  addErrorResponses(
    document,
    new Set(info.publicPaths.map(toOpenApiPath)),
    new Set((info.openPaths ?? []).map(toOpenApiPath)),
  );
  document.components = {
    ...document.components,
    schemas: {
      ...document.components?.schemas,
      ...dtoSchemas,
      ...COMMON_SCHEMAS,
      ...info.responseSchemas,
    },
  };
  return document;
}

/** Serves the document at /openapi.json and a browsable page of it at /docs. */
export function serveOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup(OPENAPI_PAGE_PATH, app, document, {
    jsonDocumentUrl: OPENAPI_DOCUMENT_PATH,
    raw: ['json'],
    customSiteTitle: document.info.title,
  });
}
