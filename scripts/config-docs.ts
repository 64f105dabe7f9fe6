// npm run config:docs: writes docs/CONFIG.md, the configuration reference, from the one schema
// (src/runtime/config-schema.ts): every key with its type, default, environment variable and the
// one-line `.describe()` text. `--check` only compares and exits 1 when the page is stale.
// Defaults are read by validating an empty configuration, so they come from the schema alone.
import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { configSchema, ENV_KEYS, POINT_IN_TIME_FORMAT } from '../src/runtime/index.ts';

export const CONFIG_DOCS_PATH = new URL('../docs/CONFIG.md', import.meta.url);

/** The subset of JSON Schema that z.toJSONSchema produces for this schema. */
interface JsonNode {
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JsonNode>>;
  readonly items?: JsonNode;
  readonly anyOf?: readonly JsonNode[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly minLength?: number;
  readonly minItems?: number;
  readonly pattern?: string;
  readonly format?: string;
}

export interface ConfigKey {
  /** dotted path, e.g. `kafka.brokers` */
  readonly key: string;
  readonly description: string | undefined;
  readonly type: string;
  readonly defaultValue: unknown;
  /** a point in time: the default is also shown as ISO-8601 */
  readonly pointInTime: boolean;
  readonly env: string | undefined;
}

export interface ConfigGroup {
  readonly key: string;
  readonly description: string | undefined;
}

function inputSchema(schema: z.ZodType): JsonNode {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonNode;
}

const isObject = (n: JsonNode): boolean => n.properties !== undefined;

function valueAt(tree: unknown, path: readonly string[]): unknown {
  let node = tree;
  for (const part of path) node = (node as Record<string, unknown>)[part];
  return node;
}

function numberRange(n: JsonNode): string {
  const min = n.exclusiveMinimum !== undefined ? `> ${n.exclusiveMinimum}` : n.minimum !== undefined ? `≥ ${n.minimum}` : undefined;
  const max = n.maximum !== undefined && n.maximum < Number.MAX_SAFE_INTEGER ? n.maximum : undefined;
  if (n.minimum !== undefined && max !== undefined) return ` ${n.minimum}–${max}`;
  if (min !== undefined) return ` ${min}`;
  return max === undefined ? '' : ` ≤ ${max}`;
}

/** A short human rendering of a JSON Schema node's type and constraints. */
export function typeOf(n: JsonNode): string {
  if (n.format === POINT_IN_TIME_FORMAT) return 'epoch ms or ISO-8601 with a zone';
  if (n.anyOf !== undefined) return n.anyOf.map(typeOf).join(' or ');
  if (n.const !== undefined) return `\`${JSON.stringify(n.const)}\``;
  if (n.enum !== undefined) return `one of ${n.enum.map((v) => `\`${JSON.stringify(v)}\``).join(', ')}`;
  const types = n.type === undefined ? [] : typeof n.type === 'string' ? [n.type] : n.type;
  if (types.length > 1) return types.map((t) => typeOf({ ...n, type: t })).join(' or ');
  switch (types[0]) {
    case 'integer':
    case 'number':
      return `${types[0]}${numberRange(n)}`;
    case 'string':
      if (n.format === 'uri') return 'URL';
      if (n.pattern !== undefined) return `string matching \`${n.pattern}\``;
      return n.minLength !== undefined && n.minLength > 0 ? 'non-empty string' : 'string';
    case 'array': {
      const items = n.items === undefined ? 'values' : typeOf(n.items);
      return `list of ${items}${n.minItems !== undefined && n.minItems > 0 ? `, at least ${n.minItems}` : ''}`;
    }
    case undefined:
      return 'any';
    default:
      return types[0];
  }
}

/** Every leaf key of the schema, in schema order, and the nested objects that group them. */
export function configKeys(schema: z.ZodType = configSchema): { keys: ConfigKey[]; groups: ConfigGroup[] } {
  const defaults = schema.parse({});
  const envOf = new Map(Object.entries(ENV_KEYS).map(([env, key]) => [key, env]));
  const keys: ConfigKey[] = [];
  const groups: ConfigGroup[] = [];
  const walk = (node: JsonNode, path: readonly string[]): void => {
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      const p = [...path, name];
      const key = p.join('.');
      if (isObject(child)) {
        groups.push({ key, description: child.description });
        walk(child, p);
      } else {
        keys.push({
          key,
          description: child.description,
          type: typeOf(child),
          defaultValue: valueAt(defaults, p),
          pointInTime: child.format === POINT_IN_TIME_FORMAT,
          env: envOf.get(key),
        });
      }
    }
  };
  walk(inputSchema(schema), []);
  return { keys, groups };
}

/** Keys and groups without a description (each must have one). */
export function undescribed(schema: z.ZodType = configSchema): string[] {
  const { keys, groups } = configKeys(schema);
  return [...groups, ...keys].filter((k) => k.description === undefined || k.description.trim() === '').map((k) => k.key);
}

const cellText = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function renderConfigDocs(): string {
  const { keys, groups } = configKeys();
  const lines = [
    '# Configuration reference',
    '',
    '<!-- Generated by `npm run config:docs` from src/runtime/config-schema.ts. Do not edit here: change the',
    "     schema's .describe() texts and regenerate (a unit test fails when this page is stale). -->",
    '',
    'One JSON file (`--config FILE` or `TSI_CONFIG`), then the environment variables below, then',
    '`--set key=value` flags; later sources win. Values from the environment and `--set` are read as JSON',
    'when they parse (`16`, `true`, `["a"]`), otherwise as strings (`TSI_KAFKA_BROKERS` is comma-separated).',
    'The whole configuration is validated once at start, and an error names the key.',
  ];
  const sections = groups.filter((g) => !g.key.includes('.'));
  for (const section of sections) {
    lines.push('', `## \`${section.key}\``, '', cellText(section.description ?? ''), '');
    const nested = groups.filter((g) => g.key.startsWith(`${section.key}.`));
    for (const g of nested) lines.push(`- \`${g.key}\`: ${cellText(g.description ?? '')}`);
    if (nested.length > 0) lines.push('');
    lines.push('| key | type | default | env | description |', '|---|---|---|---|---|');
    for (const k of keys.filter((x) => x.key.startsWith(`${section.key}.`))) {
      const env = k.env === undefined ? '' : `\`${k.env}\``;
      const json = k.defaultValue === undefined ? '(none)' : `\`${JSON.stringify(k.defaultValue)}\``;
      const def = k.pointInTime && typeof k.defaultValue === 'number' ? `${json} (${new Date(k.defaultValue).toISOString()})` : json;
      lines.push(`| \`${k.key}\` | ${cellText(k.type)} | ${cellText(def)} | ${env} | ${cellText(k.description ?? '')} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function main(argv: readonly string[]): number {
  const missing = undescribed();
  if (missing.length > 0) {
    process.stderr.write(`config keys without a description (add .describe('…') in src/runtime/config-schema.ts): ${missing.join(', ')}\n`);
    return 1;
  }
  const text = renderConfigDocs();
  if (argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(CONFIG_DOCS_PATH, 'utf8');
    } catch {
      // a missing page is stale
    }
    if (current === text) return 0;
    process.stderr.write('docs/CONFIG.md is out of date: run npm run config:docs\n');
    return 1;
  }
  writeFileSync(CONFIG_DOCS_PATH, text);
  process.stdout.write(`wrote docs/CONFIG.md (${text.split('\n').length} lines)\n`);
  return 0;
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
