// `npm run compose -- up --grafana` checks, before it starts anything, that Grafana's image (the one
// image from a registry) is in the local engine, and when it is not says so and how to provide it,
// instead of failing minutes later on a pull. The image it checks is the one docker-compose.yml runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../scripts/lib/stack/config.ts';
import { ComposeRefused, GRAFANA_IMAGE, checkGrafanaImage, type ComposeProject } from '../../../scripts/lib/images/compose.ts';
import { DEFAULT_PORTS } from '../../../scripts/lib/images/compose-ports.ts';

const project = (grafana: boolean): ComposeProject => ({ name: 'tsingest', ports: DEFAULT_PORTS, grafana });

void test("GRAFANA_IMAGE is the image docker-compose.yml's grafana service runs", () => {
  const compose = readFileSync(join(projectRoot, 'docker-compose.yml'), 'utf8');
  const block = compose.slice(compose.indexOf('\n  grafana:\n'));
  assert.equal(/\n {4}image: (\S+)\n/.exec(block)?.[1], GRAFANA_IMAGE);
});

void test('up --grafana without the image: refused, naming the image and the ways to provide it', async () => {
  const asked: string[] = [];
  const missing = (image: string): Promise<boolean> => {
    asked.push(image);
    return Promise.resolve(false);
  };
  await assert.rejects(checkGrafanaImage(project(true), missing), (err: unknown) => {
    assert.ok(err instanceof ComposeRefused, String(err));
    assert.match(err.message, /^Grafana's image grafana\/grafana:\S+ is not in the local Docker engine[^\n]*nothing was started\./);
    assert.ok(err.message.includes(`docker pull ${GRAFANA_IMAGE}`), err.message);
    assert.ok(err.message.includes(`docker save ${GRAFANA_IMAGE} -o grafana.tar`), err.message);
    assert.ok(err.message.includes(`docker tag <a local Grafana image> ${GRAFANA_IMAGE}`), err.message);
    assert.match(err.message, /without --grafana/);
    return true;
  });
  assert.deepEqual(asked, [GRAFANA_IMAGE]);
});

void test('up --grafana with the image, and up without --grafana, pass (the latter asks nothing)', async () => {
  await checkGrafanaImage(project(true), () => Promise.resolve(true));
  let asked = 0;
  await checkGrafanaImage(project(false), () => {
    asked++;
    return Promise.resolve(false);
  });
  assert.equal(asked, 0, 'plain up never looks for the Grafana image');
});
