/**
 * Where each canonical event field is found in the source JSON. Paths are dot-separated property
 * names (`payload.deviceId`); each segment must be an own property of a plain JSON object (arrays
 * are not indexed). A source key that itself contains a dot cannot be addressed.
 */
import { EventError } from './event-error.ts';

export const EVENT_FIELDS = ['id', 'ts', 'metric', 'value', 'tags'] as const;
export type EventField = (typeof EVENT_FIELDS)[number];
export type FieldMapping = { readonly [K in EventField]: string };
export type FieldMappingInput = { readonly [K in EventField]?: string | undefined };

export const DEFAULT_FIELD_MAPPING: FieldMapping = Object.freeze({
  id: 'id',
  ts: 'ts',
  metric: 'metric',
  value: 'value',
  tags: 'tags',
});

export function resolveFieldMapping(input: FieldMappingInput = {}): FieldMapping {
  const out: Record<string, string> = { ...DEFAULT_FIELD_MAPPING };
  for (const [key, path] of Object.entries(input)) {
    if (!(EVENT_FIELDS as readonly string[]).includes(key)) {
      throw new EventError('INVALID_MAPPING', `mapping.${key}`, `mapping.${key} is not an event field (${EVENT_FIELDS.join(', ')})`);
    }
    if (path === undefined) continue;
    if (typeof path !== 'string' || path.split('.').some((segment) => segment.length === 0)) {
      throw new EventError(
        'INVALID_MAPPING',
        `mapping.${key}`,
        `mapping.${key} must be a non-empty dot-separated path without empty segments, got ${JSON.stringify(path)}`,
      );
    }
    out[key] = path;
  }
  return Object.freeze(out as FieldMapping);
}

export type JsonObject = { readonly [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type FieldLookup = { readonly found: true; readonly value: unknown } | { readonly found: false; readonly detail: string };

/** Follows a dotted path through own properties of nested objects. */
export function readField(record: JsonObject, path: string): FieldLookup {
  if (!path.includes('.')) {
    // The usual mapping (top-level names): no split, no loop.
    return Object.hasOwn(record, path) ? { found: true, value: record[path] } : { found: false, detail: `${path} is missing` };
  }
  let current: unknown = record;
  const segments = path.split('.');
  for (const [i, segment] of segments.entries()) {
    if (!isJsonObject(current)) {
      const parent = segments.slice(0, i).join('.');
      return { found: false, detail: `${parent} is not an object, so ${path} is missing` };
    }
    if (!Object.hasOwn(current, segment)) {
      return { found: false, detail: `${path} is missing` };
    }
    current = current[segment];
  }
  return { found: true, value: current };
}
