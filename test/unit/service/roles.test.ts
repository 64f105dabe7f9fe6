// The roles of `tsingest run` (src/service/roles.ts): which parts each role starts, the role from
// the config file, TSI_ROLE, --set and --role (the flag wins), the 404 of the routes a role does not
// serve, and the query role's readiness from the registry's age (src/service/health.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { IncomingMessage, type ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { withRole } from '../../../src/cli/run.ts';
import { classifyError } from '../../../src/errors.ts';
import { OPEN_CONTEXT } from '../../../src/runtime/http.ts';
import { loadConfig, type Config } from '../../../src/runtime/config.ts';
import { Lifecycle } from '../../../src/runtime/lifecycle.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { registryHealth } from '../../../src/service/health.ts';
import { ROLE_PARTS, SERVICE_ROLES, absentPart, absentRoutes, partsOf, readConfig, usesKafka, type RoleParts } from '../../../src/service/roles.ts';

const cfgOf = (sets: readonly string[] = [], env: NodeJS.ProcessEnv = {}): Config => loadConfig({ env, sets: [...sets] });
const log = createLogger({ level: 'silent' });

void describe('roles: the parts each role starts', () => {
  void it('ingest consumes, writes and runs the jobs and /ui, and serves no data route', () => {
    assert.deepEqual(partsOf('ingest'), { ingest: true, rollup: true, promoter: true, doctor: true, ui: true, reads: false, writes: true });
  });

  void it('query serves the data routes only: no consumer group, no job, no promoter, no write', () => {
    assert.deepEqual(partsOf('query'), { ingest: false, rollup: false, promoter: false, doctor: false, ui: false, reads: true, writes: false });
    for (const sets of [[], ['rollup.owners.mode=kafka'], ['rollup.owners.mode=all'], ['rollup.enabled=false']]) {
      assert.equal(usesKafka(partsOf('query'), cfgOf(sets)), false, `no Kafka client at all (${sets.join(' ')})`);
    }
  });

  void it('all is every part of ingest and of query (today’s one process)', () => {
    const keys = Object.keys(ROLE_PARTS.all) as (keyof RoleParts)[];
    for (const k of keys) assert.equal(ROLE_PARTS.all[k], ROLE_PARTS.ingest[k] || ROLE_PARTS.query[k], k);
    assert.ok(
      keys.every((k) => ROLE_PARTS.all[k]),
      'every part runs somewhere',
    );
    assert.deepEqual([...SERVICE_ROLES], ['ingest', 'query', 'all']);
  });

  void it('Kafka: the ingest group, or the rollup ownership group alone', () => {
    assert.equal(usesKafka(partsOf('ingest'), cfgOf()), true);
    assert.equal(usesKafka(partsOf('all'), cfgOf(['rollup.enabled=false'])), true);
    const jobsOnly: RoleParts = { ...partsOf('query'), rollup: true };
    assert.equal(usesKafka(jobsOnly, cfgOf()), true);
    assert.equal(usesKafka(jobsOnly, cfgOf(['rollup.owners.mode=all'])), false);
    assert.equal(usesKafka(jobsOnly, cfgOf(['rollup.enabled=false'])), false);
  });

  void it('a process that writes nothing never repairs a dangling index row', () => {
    const cfg = cfgOf(['query.repairDangling=true']);
    assert.equal(readConfig(cfg, partsOf('query')).query.repairDangling, false);
    assert.equal(readConfig(cfg, partsOf('all')), cfg);
    assert.equal(readConfig(cfgOf(), partsOf('query')).query.repairDangling, false);
  });
});

void describe('roles: the configuration and the flag', () => {
  void it('service.role: all by default, from the file keys, TSI_ROLE and --set; another value names the key', () => {
    assert.equal(cfgOf().service.role, 'all');
    assert.equal(cfgOf([], { TSI_ROLE: 'query' }).service.role, 'query');
    assert.equal(cfgOf(['service.role=ingest'], { TSI_ROLE: 'query' }).service.role, 'ingest');
    assert.throws(() => cfgOf(['service.role=reader']), /service\.role/);
  });

  void it('--role wins over TSI_ROLE and --set; a role that does not exist is a usage error (exit 2)', () => {
    const values = withRole({ role: 'query', set: ['service.role=ingest', 'log.level=warn'] });
    assert.deepEqual(values['set'], ['service.role=ingest', 'log.level=warn', 'service.role=query']);
    const sets = values['set'];
    assert.ok(Array.isArray(sets));
    assert.equal(cfgOf(sets.map(String), { TSI_ROLE: 'ingest' }).service.role, 'query');
    assert.equal(withRole({ set: ['a=b'] })['set']?.toString(), 'a=b', 'no flag: the flags as they are');
    assert.deepEqual(withRole({ role: 'all' })['set'], ['service.role=all']);
    assert.throws(
      () => withRole({ role: 'reader' }),
      (err: unknown) => classifyError(err).code === 'USAGE' && /--role must be one of ingest, query, all, got "reader"/.test(String(err)),
    );
  });
});

void describe('roles: the routes a role does not serve', () => {
  interface Answer {
    status?: number;
    body?: string;
  }
  const answer = async (role: 'ingest' | 'query' | 'all', path: string): Promise<Answer | false> => {
    const got: Answer = {};
    const res = {
      writeHead: (status: number) => {
        got.status = status;
        return res;
      },
      end: (body: string) => {
        got.body = body;
      },
    } as unknown as ServerResponse;
    const handled = await absentRoutes(role)(new IncomingMessage(new Socket()), res, new URL(path, 'http://x'), OPEN_CONTEXT);
    return handled ? got : false;
  };

  void it('ingest: the read API and the series API answer 404 naming the query role; /ui is its own', async () => {
    for (const path of ['/api/v1/ids/a/latest', '/api/query', '/api/suggest', '/api/search/lookup', '/api/version']) {
      const a = await answer('ingest', path);
      assert.ok(a !== false, path);
      assert.equal(a.status, 404);
      assert.deepEqual(JSON.parse(a.body ?? ''), {
        status: 'not_found',
        path,
        reason: 'this process runs the ingest role; the query role serves the read API and the series API (service.role)',
      });
    }
    for (const path of ['/ui', '/ui/data.json', '/nothing', '/apiv1']) assert.equal(await answer('ingest', path), false, path);
  });

  void it('query: /ui answers 404 naming the ingest role; the data routes are its own', async () => {
    for (const path of ['/ui', '/ui/', '/ui/data.json']) {
      const a = await answer('query', path);
      assert.ok(a !== false, path);
      assert.equal(a.status, 404);
      assert.match(a.body ?? '', /the ingest role serves \/ui/);
    }
    for (const path of ['/api/query', '/api/v1/ids/a/latest', '/uix']) assert.equal(await answer('query', path), false, path);
  });

  void it('all: nothing is absent', () => {
    for (const path of ['/api/query', '/api/v1/x', '/ui', '/ui/data.json']) assert.equal(absentPart(partsOf('all'), path), undefined, path);
  });
});

void describe('registryHealth: the query role is ready while its spread registry is read', () => {
  void it('not ready once the snapshot is older than the limit, ready again with the next read', (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const lifecycle = new Lifecycle({ log });
    const registry = { ageMs: 100 };
    const stop = registryHealth({ registry, lifecycle, log, limitMs: 5000, everyMs: 1000 });
    lifecycle.started('serving reads');
    t.mock.timers.tick(1000);
    assert.equal(lifecycle.ready, true);
    registry.ageMs = 5001;
    t.mock.timers.tick(1000);
    assert.equal(lifecycle.state, 'degraded');
    assert.match(lifecycle.reason, /HBase unavailable: the spread registry not read for 5s/);
    registry.ageMs = 30;
    t.mock.timers.tick(1000);
    assert.equal(lifecycle.state, 'running');
    stop();
    registry.ageMs = 9999;
    t.mock.timers.tick(5000);
    assert.equal(lifecycle.state, 'running', 'stopped: no more checks');
  });
});
