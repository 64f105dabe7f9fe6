// kafkajs → pino: levels map one to one, except the "group coordinator not ready yet" responses a
// fresh broker gives while it loads __consumer_offsets (normal start-up, retried by kafkajs), which
// are logged at info instead of error. Goes through a real kafkajs client's logger (no broker needed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Kafka, logLevel } from 'kafkajs';
import { createLogger } from '../../../src/runtime/logger.ts';
import { COORDINATOR_STARTING_ERRORS, isCoordinatorStarting, kafkaLogCreator } from '../../../src/service/kafka-logging.ts';

type Line = Readonly<Record<string, unknown>>;

function kafkaLogger(): { lines: Line[]; logger: ReturnType<Kafka['logger']> } {
  const lines: Line[] = [];
  const log = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(JSON.parse(line) as Line) } });
  const kafka = new Kafka({ clientId: 'unit', brokers: ['127.0.0.1:1'], logLevel: logLevel.DEBUG, logCreator: kafkaLogCreator(log) });
  return { lines, logger: kafka.logger() };
}

/** kafkajs's own text for a protocol error code (its error table, not a copy). */
function kafkaErrorMessage(code: number): string {
  const { createErrorFromCode } = createRequire(import.meta.url)('kafkajs/src/protocol/error.js') as {
    createErrorFromCode: (code: number) => Error & { type: string };
  };
  return createErrorFromCode(code).message;
}

void test('the demoted texts are exactly kafkajs errors 14 (GROUP_LOAD_IN_PROGRESS) and 15 (GROUP_COORDINATOR_NOT_AVAILABLE)', () => {
  assert.deepEqual([...COORDINATOR_STARTING_ERRORS].sort(), [kafkaErrorMessage(14), kafkaErrorMessage(15)].sort());
});

void test('"group coordinator is not available" while the coordinator loads is logged at info, not error', () => {
  const { lines, logger } = kafkaLogger();
  const error = kafkaErrorMessage(15);
  // what kafkajs's Connection logs for a GroupCoordinator response carrying error 15
  logger.namespace('Connection').error('Response GroupCoordinator(key: 10, version: 2)', {
    broker: '127.0.0.1:9092',
    clientId: 'tsingest',
    error,
    correlationId: 3,
    size: 55,
  });
  logger.namespace('Connection').error('Response JoinGroup(key: 11, version: 5)', { error: kafkaErrorMessage(14), correlationId: 4 });
  assert.equal(lines.length, 2);
  for (const line of lines) {
    assert.equal(line['level'], 'info', JSON.stringify(line));
    assert.equal(line['component'], 'kafkajs');
    assert.equal(line['retriable'], true);
    assert.match(String(line['msg']), /^Response \w+\(key: \d+, version: \d+\) \(group coordinator still starting; kafkajs retries\)$/);
  }
  const [first] = lines;
  assert.ok(first);
  assert.equal(first['error'], error);
  assert.equal(first['broker'], '127.0.0.1:9092');
});

void test('other kafkajs errors stay errors; warn, info and debug keep their level', () => {
  const { lines, logger } = kafkaLogger();
  logger.error('Response Produce(key: 0, version: 7)', { error: kafkaErrorMessage(16) }); // NOT_COORDINATOR_FOR_GROUP
  logger.error('Crash: KafkaJSGroupCoordinatorNotFound: Failed to find group coordinator', { groupId: 'g' });
  logger.error('Response Fetch(key: 1, version: 11)', { error: 'The group coordinator is not available!' });
  logger.warn('w');
  logger.info('i');
  logger.debug('d');
  assert.deepEqual(
    lines.map((l) => [l['level'], l['msg']]),
    [
      ['error', 'Response Produce(key: 0, version: 7)'],
      ['error', 'Crash: KafkaJSGroupCoordinatorNotFound: Failed to find group coordinator'],
      ['error', 'Response Fetch(key: 1, version: 11)'],
      ['warn', 'w'],
      ['info', 'i'],
      ['debug', 'd'],
    ],
  );
});

void test('isCoordinatorStarting looks only at the error text kafkajs attaches', () => {
  assert.equal(isCoordinatorStarting({ message: 'x', error: 'The group coordinator is not available' }), true);
  assert.equal(isCoordinatorStarting({ message: 'The group coordinator is not available' }), false);
  assert.equal(isCoordinatorStarting({ message: 'x', error: { message: 'The group coordinator is not available' } }), false);
});
