import type { INestApplication, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject, ParameterObject, SchemaObject } from '@nestjs/swagger';

interface RouteArgument {
  readonly index: number;
  readonly data?: unknown;
}

function controllersOf(app: INestApplication): Map<string, Type> {
  const controllers = new Map<string, Type>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      if (wrapper.metatype) controllers.set(wrapper.metatype.name, wrapper.metatype as Type);
    }
  }
  return controllers;
}

/** The class of a handler's whole-object `@Query()` argument, if it has one. */
function queryDtoOf(controller: Type, method: string): string | undefined {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<
    string,
    RouteArgument
  >;
  const prototype = controller.prototype as object;
  const types = (Reflect.getMetadata('design:paramtypes', prototype, method) ?? []) as Type[];
  for (const [key, argument] of Object.entries(args)) {
    if (key.split(':')[0] !== String(RouteParamtypes.QUERY) || argument.data !== undefined)
      continue;
    return types[argument.index]?.name;
  }
  return undefined;
}

function parametersOf(schema: SchemaObject): ParameterObject[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: property,
  }));
}

/**
 * Query strings validated by a DTO (`@Query() query: SomeQueryDto`) become one parameter per
 * field of that DTO's schema; Nest's OpenAPI module only sees fields declared for it.
 */
export function addQueryParameters(
  document: OpenAPIObject,
  app: INestApplication,
  schemas: Readonly<Record<string, SchemaObject>>,
): void {
  const controllers = controllersOf(app);
  for (const item of Object.values(document.paths)) {
    for (const operation of [item.get, item.post, item.put, item.patch, item.delete]) {
      const [controllerName, method] = operation?.operationId?.split('_') ?? [];
      const controller = controllerName ? controllers.get(controllerName) : undefined;
      if (!operation || !controller || !method) continue;
      const dto = queryDtoOf(controller, method);
      const schema = dto ? schemas[dto] : undefined;
      if (schema) operation.parameters = [...(operation.parameters ?? []), ...parametersOf(schema)];
    }
  }
}
