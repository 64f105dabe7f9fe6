// A port clash is caught before anything starts (`npm run compose -- up`, scripts/lib/images/compose.ts):
// the message names the taken port and the variable that moves it, and suggests a port it found free, and the project leaves no
// container, volume or network behind; a port taken after the check, while up starts the containers,
// is named the same way and what up had created is removed. The first test needs a Docker engine,
// the second the images too (built before the compose tests in .ci/run; up builds them otherwise).
import { createServer } from 'node:net';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ComposeRefused, composeUp, type ComposeProject } from '../../scripts/lib/images/compose.ts';
import { resolvePorts } from '../../scripts/lib/images/compose-ports.ts';
import { freePort, portFree } from '../../scripts/lib/stack/probes.ts';
import { holdPorts, projectLeftovers } from './project.ts';

test('compose up on a taken port: refused before starting anything, naming the port and its variable; nothing left behind', async (t) => {
  const taken = await freePort();
  const other = await holdPorts([taken]);
  t.after(other.release);
  assert.deepEqual(other.held, [taken]);
  const env = {
    TSI_COMPOSE_KAFKA_PORT: String(taken),
    TSI_COMPOSE_REST_PORT: String(await freePort()),
    TSI_COMPOSE_HTTP_PORT: String(await freePort()),
    TSI_COMPOSE_QUERY_PORT: String(await freePort()),
    TSI_COMPOSE_PROMETHEUS_PORT: String(await freePort()),
  };
  const project: ComposeProject = { name: `tsiclash${Date.now().toString(36)}`, ports: resolvePorts(env, new Map()) };
  const lines: string[] = [];
  const t0 = Date.now();
  let suggested = Number.NaN;
  await assert.rejects(
    composeUp(project, (m) => lines.push(m)),
    (err: unknown) => {
      assert.ok(err instanceof ComposeRefused, String(err));
      assert.match(err.message, /^a port of the compose stack is in use by something else; nothing was started:/);
      assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${taken} \\(Kafka, service kafka\\) is taken: move it with TSI_COMPOSE_KAFKA_PORT`));
      suggested = Number(/TSI_COMPOSE_KAFKA_PORT=(\d+) npm run compose -- up/.exec(err.message)?.[1]);
      return true;
    },
  );
  assert.ok(suggested !== taken && (await portFree(suggested)), `the suggested port ${suggested} is free`);
  assert.ok(Date.now() - t0 < 15_000, 'refused at once, before images or containers');
  assert.deepEqual(lines, [], 'nothing was started or built');
  assert.deepEqual(projectLeftovers(project.name), { containers: '', volumes: '', networks: '' });
});

test('compose up whose port is taken after the check, while it starts: refused naming the port, and what it had created is removed', async (t) => {
  const ports = {
    TSI_COMPOSE_KAFKA_PORT: String(await freePort()),
    TSI_COMPOSE_REST_PORT: String(await freePort()),
    TSI_COMPOSE_HTTP_PORT: String(await freePort()),
    TSI_COMPOSE_QUERY_PORT: String(await freePort()),
    TSI_COMPOSE_PROMETHEUS_PORT: String(await freePort()),
  };
  const project: ComposeProject = { name: `tsirace${Date.now().toString(36)}`, ports: resolvePorts(ports, new Map()) };
  const kafkaPort = project.ports.kafka;
  // "something else" binds Kafka's port once the check has passed, just as up starts the containers
  const squatter = createServer();
  t.after(
    () =>
      new Promise<void>((res) => {
        squatter.close(() => {
          res();
        });
      }),
  );
  const lines: string[] = [];
  await assert.rejects(
    composeUp(project, (m) => {
      lines.push(m);
      if (m.includes('starting kafka and hbase')) squatter.listen(kafkaPort, '127.0.0.1');
    }),
    (err: unknown) => {
      assert.ok(err instanceof ComposeRefused, String(err));
      assert.match(err.message, /^a port of the compose stack is in use by something else \(taken while up was starting\); what up had started is removed:/);
      assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${kafkaPort} \\(Kafka, service kafka\\) is taken: move it with TSI_COMPOSE_KAFKA_PORT`));
      return true;
    },
  );
  assert.ok(squatter.listening, 'the port was held by the other process');
  assert.ok(
    lines.some((l) => l.startsWith('up failed: removing what it created (down -v)')),
    lines.join('\n'),
  );
  assert.deepEqual(projectLeftovers(project.name), { containers: '', volumes: '', networks: '' }, 'no container, volume or network of the project left');
});
