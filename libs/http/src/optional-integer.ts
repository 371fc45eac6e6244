import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/**
 * An optional whole number from `min` to `max`; `fromText` also takes its decimal text, as a query
 * string carries it. The same constraints (and so the same 422 details and OpenAPI schema) as the
 * decorators written out.
 */
export function OptionalInteger(
  min: number,
  max: number,
  { fromText = false }: { readonly fromText?: boolean } = {},
): PropertyDecorator {
  // In the order a stack of the same decorators is applied: the lowest first.
  return applyDecorators(
    Max(max),
    Min(min),
    IsInt(),
    ...(fromText ? [Type(() => Number)] : []),
    IsOptional(),
  );
}
