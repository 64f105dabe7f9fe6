// events.maxTs: the upper bound on event timestamps is a config key (epoch ms or ISO-8601, default
// 2200-01-01); eventLimitsFor(cfg.events) (what the service's plan settings use) carries it to the
// parser, and bad values name the key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_TS, eventLimitsFor, parseEvent, resolveFieldMapping } from '../../../src/events/index.ts';
import { ConfigError, loadConfig } from '../../../src/runtime/config.ts';
import { planSettings } from '../../../src/service/service-settings.ts';
import { keyspaceOf, tablesOf } from '../../../src/service/keyspace.ts';

const event = (ts: number | string): Buffer => Buffer.from(JSON.stringify({ id: 'sensor-0042', ts, metric: 'temp', value: 21.5 }));

void test('events.maxTs defaults to 2200-01-01T00:00:00Z', () => {
  const cfg = loadConfig({ env: {} });
  assert.equal(cfg.events.maxTs, DEFAULT_MAX_TS);
  assert.equal(new Date(cfg.events.maxTs).toISOString(), '2200-01-01T00:00:00.000Z');
  assert.equal(eventLimitsFor(cfg.events)().maxTs, DEFAULT_MAX_TS);
});

void test('events.maxTs takes epoch ms or ISO-8601, from a config file or --set', () => {
  const year2300 = Date.UTC(2300, 0, 1);
  const file = join(mkdtempSync(join(tmpdir(), 'cfg-maxts-')), 'c.json');
  writeFileSync(file, JSON.stringify({ events: { maxTs: '2300-01-01T00:00:00Z' } }));
  assert.equal(loadConfig({ file, env: {} }).events.maxTs, year2300);
  assert.equal(loadConfig({ sets: ['events.maxTs=2300-01-01T00:00:00Z'] }).events.maxTs, year2300);
  assert.equal(loadConfig({ sets: [`events.maxTs=${year2300}`] }).events.maxTs, year2300);
  assert.equal(loadConfig({ sets: ['events.maxTs="2300-01-01T01:00:00+01:00"'] }).events.maxTs, year2300);
});

void test('a raised events.maxTs lets later events through the parser; the reject names the key', () => {
  const in2250 = Date.UTC(2250, 0, 1);
  const mapping = resolveFieldMapping();
  const defaults = eventLimitsFor(loadConfig({ env: {} }).events)();
  const before = parseEvent(event(in2250), mapping, defaults);
  assert.ok(!before.ok && before.reason === 'ts_out_of_range' && before.detail.includes('events.maxTs'), JSON.stringify(before));

  const raised = eventLimitsFor(loadConfig({ sets: ['events.maxTs=2300-01-01T00:00:00Z'] }).events)();
  const after = parseEvent(event(in2250), mapping, raised);
  assert.ok(after.ok && after.event.ts === in2250, JSON.stringify(after));
  const beyond = parseEvent(event('2300-01-01T00:00:00.001Z'), mapping, raised);
  assert.ok(!beyond.ok && beyond.reason === 'ts_out_of_range' && /after events\.maxTs \d+ \(2300-01-01T00:00:00\.000Z\)/.test(beyond.detail));
});

void test('events.maxTs combines with events.maxFutureSkewMs: the tighter bound wins, now is re-read per call', () => {
  const cfg = loadConfig({ sets: ['events.maxTs=2300-01-01T00:00:00Z', 'events.maxFutureSkewMs=60000'] });
  let now = Date.UTC(2024, 10, 22);
  const limitsOf = eventLimitsFor(cfg.events, () => now);
  const limits = limitsOf();
  assert.deepEqual([limits.maxTs, limits.maxFutureSkewMs, limits.nowMs], [Date.UTC(2300, 0, 1), 60_000, now]);
  const mapping = resolveFieldMapping(cfg.events.mapping);
  const farFuture = parseEvent(event(Date.UTC(2100, 0, 1)), mapping, limits);
  assert.ok(!farFuture.ok && farFuture.detail.includes('events.maxFutureSkewMs'), JSON.stringify(farFuture));
  assert.ok(parseEvent(event(now + 60_000), mapping, limits).ok);
  now += 3_600_000;
  assert.equal(limitsOf().nowMs, now);
  assert.ok(parseEvent(event(now + 60_000), mapping, limitsOf()).ok, 'the bound moves with the clock');
  const noSkew = eventLimitsFor(loadConfig({ env: {} }).events, () => {
    throw new Error('clock read without maxFutureSkewMs');
  });
  assert.equal(noSkew().nowMs, undefined);
});

void test("the service's plan settings carry events.maxTs to every flush unit", () => {
  const cfg = loadConfig({ sets: ['events.maxTs=2300-01-01T00:00:00Z', 'events.maxCellBytes=4096'] });
  const settings = planSettings(cfg, keyspaceOf(cfg), tablesOf(cfg));
  assert.equal(settings().limits.maxTs, Date.UTC(2300, 0, 1));
  assert.equal(settings().limits.maxCellBytes, 4096);
  const plain = loadConfig({ env: {} });
  assert.equal(planSettings(plain, keyspaceOf(plain), tablesOf(plain))().limits.maxTs, DEFAULT_MAX_TS);
});

void test('a bad events.maxTs is a configuration error naming the key', () => {
  const fails = (value: string, detail: RegExp) => {
    assert.throws(
      () => loadConfig({ sets: [`events.maxTs=${value}`] }),
      (e: unknown) => e instanceof ConfigError && e.message.includes('events.maxTs:') && detail.test(e.message),
      value,
    );
  };
  fails('2300-01-01', /no timezone/);
  fails('-5', /before 1970-01-01/);
  fails('1.5', /integer/);
  fails('true', /epoch milliseconds or an ISO-8601 string/);
  fails('next-year', /expected epoch milliseconds or ISO-8601/);
});
