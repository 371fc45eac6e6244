import { Injectable, type PipeTransform } from '@nestjs/common';
import { isUuid } from './uuid5.js';

/** Uuids are case-insensitive: one spelling (lower case) names each stream and row. */
export function normalizeId(value: string): string {
  return isUuid(value) ? value.toLowerCase() : value;
}

/** For path parameters that hold ids. */
@Injectable()
export class IdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    return normalizeId(value);
  }
}

const normalizeIfId = (value: unknown): unknown =>
  typeof value === 'string' ? normalizeId(value) : value;

/** For body fields that hold an id or a list of ids: `@Transform(toNormalizedId)`. */
export const toNormalizedId = ({ value }: { value: unknown }): unknown =>
  Array.isArray(value) ? value.map(normalizeIfId) : normalizeIfId(value);
