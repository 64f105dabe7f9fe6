// Assertions that narrow a generated dashboard's JSON while walking it (the dashboard tests).
import assert from 'node:assert/strict';
import { text, type Json, type JsonObject } from '../../scripts/dashboard/grafana.ts';

export function obj(v: Json | undefined): JsonObject {
  assert.ok(typeof v === 'object' && v !== null && !Array.isArray(v), `expected an object, got ${text(v)}`);
  return v as JsonObject;
}

export function arr(v: Json | undefined): readonly Json[] {
  assert.ok(Array.isArray(v), `expected an array, got ${text(v)}`);
  return v as readonly Json[];
}
