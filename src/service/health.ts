// Readiness follows what the service can really do. Three health conditions feed the lifecycle
// (running ⇄ degraded, /readyz): `hbase` (OutageWatch: the oldest unacknowledged write is past
// hbase.outageDeadlineMs), `kafka-consumer` (kafkajs crashed, disconnected or stopped the consumer;
// healthy again when it rejoins the group) and `kafka-broker` (the lag poll gets no answer). A
// process of the query role has no consumer and writes nothing: its one condition is `hbase`, from
// the age of its spread registry snapshot (registryHealth).
import type { Logger } from 'pino';
import { ServiceError, errorMessage } from '../errors.ts';
import { isAccessRefused } from '../hbase/index.ts';
import type { IngestConsumer } from '../ingest/consumer.ts';
import type { LagMonitor } from '../ingest/lag-monitor.ts';
import type { OutageWatch } from '../ingest/outage-watch.ts';
import type { Lifecycle } from '../runtime/lifecycle.ts';
import type { SpreadRegistry } from '../spread/registry.ts';
import type { ConsumerHealthEvents } from './kafka-parts.ts';
import { BROKER_POLL_FAILURES } from './service-settings.ts';

type Log = Pick<Logger, 'info' | 'warn' | 'error'>;

/** HBase outage → pause fetching + not ready; recovery → resume + ready. Returns the unsubscribe. */
export function wireHBaseHealth(watch: OutageWatch, ingest: Pick<IngestConsumer, 'pause' | 'resume'>, lifecycle: Lifecycle, log: Log): () => void {
  return watch.listen({
    onFailing: (err) => {
      log.warn({ err }, 'HBase writes failing; retrying with backoff');
    },
    onOutage: (sinceMs, err) => {
      log.error({ err, sinceMs }, 'HBase unavailable past the outage deadline: pausing consumption until it returns');
      ingest.pause('hbase_outage');
      const why = isAccessRefused(err) ? 'HBase REST refused the credentials (hbase.auth, hbase.tls)' : 'HBase unavailable';
      const since = Date.now() - sinceMs;
      // Rendered when read, so the age keeps counting while the outage lasts.
      lifecycle.setCondition('hbase', false, () => `${why}: no write acknowledged for ${Math.round((Date.now() - since) / 1000)}s`);
    },
    onRecovered: () => {
      log.info('HBase answers again: resuming consumption');
      ingest.resume('hbase_outage');
      lifecycle.setCondition('hbase', true);
    },
  });
}

export interface ConsumerHealthDeps {
  readonly lifecycle: Lifecycle;
  readonly log: Log;
  readonly ingest: Pick<IngestConsumer, 'reapplyPause'>;
  readonly lag: Pick<LagMonitor, 'assign' | 'poll'>;
  /** kafkajs gave up on the consumer: the service must fail */
  readonly fail: (err: unknown) => void;
  /** told at every join of the group (the first, and each after a rebalance) */
  readonly onJoin?: () => void;
}

export function consumerHealth(d: ConsumerHealthDeps): ConsumerHealthEvents {
  return {
    joined(partitions) {
      d.log.info({ partitions }, 'joined the consumer group');
      d.onJoin?.();
      d.lag.assign(partitions);
      d.ingest.reapplyPause();
      d.lifecycle.setCondition('kafka-consumer', true);
      void d.lag.poll();
    },
    crashed(err, restart) {
      d.log.error({ err, restart }, restart ? 'Kafka consumer crashed; kafkajs restarts it' : 'Kafka consumer crashed and will not be restarted');
      d.lifecycle.setCondition('kafka-consumer', false, `Kafka consumer crashed: ${errorMessage(err)}`);
      if (!restart) d.fail(new ServiceError({ code: 'CONSUMER_CRASHED', message: `Kafka consumer crashed: ${errorMessage(err)}`, cause: err }));
    },
    lost(what) {
      d.lifecycle.setCondition('kafka-consumer', false, `Kafka consumer ${what}`);
    },
    fetched() {
      // A fetch answered: the consumer is alive. Health returns with the next group join.
    },
  };
}

/** The lag poll doubles as a broker probe: `failures` unanswered polls in a row → not ready. */
export function brokerHealth(lifecycle: Lifecycle, log: Log, failures = BROKER_POLL_FAILURES): (ok: boolean, err?: unknown) => void {
  let missed = 0;
  return (ok, err) => {
    if (ok) {
      if (missed >= failures) log.info('Kafka broker answers again');
      missed = 0;
      lifecycle.setCondition('kafka-broker', true);
      return;
    }
    missed++;
    if (missed === failures) log.error({ err }, 'Kafka broker unreachable');
    if (missed >= failures) lifecycle.setCondition('kafka-broker', false, `Kafka broker unreachable: ${errorMessage(err)}`);
  };
}

export interface RegistryHealthOptions {
  readonly registry: Pick<SpreadRegistry, 'ageMs'>;
  readonly lifecycle: Lifecycle;
  readonly log: Log;
  readonly limitMs: number;
  /** how often the registry's age is looked at (default 1 s) */
  readonly everyMs?: number;
}

/**
 * The `hbase` condition of a process that writes nothing (the query role): the spread registry's
 * refresh (every keys.spread.refreshMs) is its probe. Not ready while its last good read is older than
 * `limitMs`, ready again with the next one. Returns the stop function.
 */
export function registryHealth(o: RegistryHealthOptions): () => void {
  const { registry, lifecycle, log, limitMs, everyMs = 1000 } = o;
  let failing = false;
  const timer = setInterval(() => {
    const stale = registry.ageMs > limitMs;
    if (stale === failing) return;
    failing = stale;
    if (stale) {
      log.error({ limitMs }, 'HBase unavailable: the spread registry could not be read for too long');
      lifecycle.setCondition('hbase', false, () => `HBase unavailable: the spread registry not read for ${Math.round(registry.ageMs / 1000)}s`);
    } else {
      log.info('HBase answers again');
      lifecycle.setCondition('hbase', true);
    }
  }, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}
