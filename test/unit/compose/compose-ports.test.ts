// The compose stack's project name and ports (scripts/lib/images/compose-ports.ts): the environment beats
// `.env`, which beats the defaults; `.env` is rewritten in place; a taken port is named with the
// variable that moves it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_PORTS,
  clashMessage,
  suggestFreePorts,
  dotEnvValues,
  parseDotEnv,
  portsRefusedBy,
  portsToCheck,
  publishedHostPorts,
  renderDotEnv,
  resolvePorts,
  resolveProject,
} from '../../../scripts/lib/images/compose-ports.ts';

const none = new Map<string, string>();

void test('ports: environment, then .env, then the defaults', () => {
  assert.deepEqual(resolvePorts({}, none), { kafka: 9092, rest: 8080, http: 9464, query: 9465, prometheus: 9090, grafana: 3000 });
  const dotEnv = parseDotEnv('TSI_COMPOSE_KAFKA_PORT=19092\nTSI_COMPOSE_REST_PORT=18080\n');
  const ports = resolvePorts({ TSI_COMPOSE_KAFKA_PORT: '29092', TSI_COMPOSE_HTTP_PORT: '' }, dotEnv);
  assert.deepEqual(ports, { ...DEFAULT_PORTS, kafka: 29092, rest: 18080 });
});

void test('ports: not a port, or two services on one port, is an error naming the variables', () => {
  assert.throws(() => resolvePorts({ TSI_COMPOSE_REST_PORT: '80a' }, none), /TSI_COMPOSE_REST_PORT=80a is not a port number/);
  assert.throws(() => resolvePorts({ TSI_COMPOSE_REST_PORT: '70000' }, none), /TSI_COMPOSE_REST_PORT=70000/);
  assert.throws(() => resolvePorts({ TSI_COMPOSE_HTTP_PORT: '9090' }, none), /^Error: TSI_COMPOSE_HTTP_PORT and TSI_COMPOSE_PROMETHEUS_PORT are both 9090/);
  assert.throws(() => resolvePorts({ TSI_COMPOSE_QUERY_PORT: '9464' }, none), /^Error: TSI_COMPOSE_HTTP_PORT and TSI_COMPOSE_QUERY_PORT are both 9464/);
});

void test('project: COMPOSE_PROJECT_NAME from the environment or .env, default tsingest; a bad name refused', () => {
  assert.equal(resolveProject({}, none), 'tsingest');
  assert.equal(resolveProject({}, parseDotEnv('COMPOSE_PROJECT_NAME=demo')), 'demo');
  assert.equal(resolveProject({ COMPOSE_PROJECT_NAME: 'mine' }, parseDotEnv('COMPOSE_PROJECT_NAME=demo')), 'mine');
  assert.throws(() => resolveProject({ COMPOSE_PROJECT_NAME: 'My Stack' }, none), /lower-case/);
});

void test(".env: parsed like docker-compose reads it, rewritten in place keeping the user's own lines", () => {
  const text = '# mine\nexport FOO="bar"\nTSI_COMPOSE_KAFKA_PORT = 19092\n\nOTHER=\'x y\'\n';
  assert.deepEqual(
    [...parseDotEnv(text)],
    [
      ['FOO', 'bar'],
      ['TSI_COMPOSE_KAFKA_PORT', '19092'],
      ['OTHER', 'x y'],
    ],
  );
  const ports = { ...DEFAULT_PORTS, kafka: 29092 };
  const out = renderDotEnv(text, dotEnvValues('tsingest', ports));
  assert.equal(
    out,
    [
      '# mine',
      'export FOO="bar"',
      'TSI_COMPOSE_KAFKA_PORT=29092',
      '',
      "OTHER='x y'",
      'COMPOSE_PROJECT_NAME=tsingest',
      'TSI_COMPOSE_REST_PORT=8080',
      'TSI_COMPOSE_HTTP_PORT=9464',
      'TSI_COMPOSE_QUERY_PORT=9465',
      'TSI_COMPOSE_PROMETHEUS_PORT=9090',
      'TSI_COMPOSE_GRAFANA_PORT=3000',
      '',
    ].join('\n'),
  );
  assert.deepEqual(resolvePorts({}, parseDotEnv(out)), ports, 'what up writes is what the next command reads');
  const fresh = renderDotEnv('', dotEnvValues('tsingest', DEFAULT_PORTS));
  assert.match(fresh, /^# Written by `npm run compose -- up`/);
  assert.equal(renderDotEnv(fresh, dotEnvValues('tsingest', DEFAULT_PORTS)), fresh, 'idempotent');
});

void test('ports the project already publishes are not a clash when up runs again', () => {
  const own = publishedHostPorts('127.0.0.1:19092->9092/tcp\n127.0.0.1:18080->8080/tcp\n\n9093/tcp\n');
  assert.deepEqual([...own], [19092, 18080]);
  const ports = { ...DEFAULT_PORTS, kafka: 19092, rest: 18080 };
  assert.deepEqual(portsToCheck(ports, ['kafka', 'rest', 'http', 'query', 'prometheus'], own), ['http', 'query', 'prometheus']);
});

void test('the clash message names each taken port, its service and the variable that moves it, and suggests the free ports it was given', () => {
  const msg = clashMessage(DEFAULT_PORTS, ['kafka', 'rest'], { kafka: 19093, rest: 18080 });
  assert.equal(
    msg,
    [
      '2 ports of the compose stack are in use by something else; nothing was started:',
      '  127.0.0.1:9092 (Kafka, service kafka) is taken: move it with TSI_COMPOSE_KAFKA_PORT',
      '  127.0.0.1:8080 (the HBase REST gateway, service hbase) is taken: move it with TSI_COMPOSE_REST_PORT',
      '  e.g. TSI_COMPOSE_KAFKA_PORT=19093 TSI_COMPOSE_REST_PORT=18080 npm run compose -- up   (these ports were free just now; the ports are kept in .env for the next commands)',
    ].join('\n'),
  );
  const none = clashMessage(DEFAULT_PORTS, ['http'], {});
  assert.match(none, /TSI_COMPOSE_HTTP_PORT=<a free port> npm run compose -- up {3}\(the ports are kept in \.env/);
  assert.doesNotMatch(none, /free just now/, 'no claim of a free port when none was found');
});

void test('suggestFreePorts: from port + 10000 on, past ports the check finds taken, never a port of the stack, each checked', async () => {
  const busy = new Set([19092, 19093]);
  const asked: number[] = [];
  const isFree = (port: number): Promise<boolean> => {
    asked.push(port);
    return Promise.resolve(!busy.has(port));
  };
  const ports = { ...DEFAULT_PORTS, rest: 19094 }; // the stack's own REST port is never suggested for Kafka
  assert.deepEqual(await suggestFreePorts(ports, ['kafka', 'http'], isFree), { kafka: 19095, http: 19464 });
  assert.deepEqual(asked, [19092, 19093, 19095, 19464], "each suggestion was checked; the stack's own port was skipped unchecked");
  assert.deepEqual(await suggestFreePorts({ ...DEFAULT_PORTS, http: 60000 }, ['http'], isFree), { http: 59999 }, 'near the top: downwards');
  assert.deepEqual(await suggestFreePorts(DEFAULT_PORTS, ['kafka'], () => Promise.resolve(false), 5), {}, 'nothing free within the tries: no suggestion');
});

void test("a port taken after the check: found in docker-compose's output and named the same way", () => {
  const out =
    'ERROR: for prometheus  Cannot start service prometheus: driver failed programming external connectivity on endpoint tsingest_prometheus_1 (978836c0): ' +
    'Error starting userland proxy: listen tcp4 127.0.0.1:19090: bind: address already in use\nEncountered errors while bringing up the project.';
  const ports = { ...DEFAULT_PORTS, prometheus: 19090 };
  assert.deepEqual(portsRefusedBy(out, ports), ['prometheus']);
  assert.deepEqual(portsRefusedBy('compose up app failed (exit 1): something else', ports), []);
  assert.match(
    clashMessage(ports, ['prometheus'], { prometheus: 29090 }, 'during'),
    /^a port of the compose stack is in use by something else \(taken while up was starting\); what up had started is removed:\n {2}127\.0\.0\.1:19090 \(Prometheus, service prometheus\) is taken: move it with TSI_COMPOSE_PROMETHEUS_PORT\n/,
  );
});
