// "Does it really answer?" — shared by the local stack and the testcontainers stack.
import { createServer } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';

/** A real Kafka metadata round trip: a broker is registered and a controller is known. */
export async function kafkaAnswers(brokers: string): Promise<boolean> {
  const admin = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING, connectionTimeout: 2000, retry: { retries: 1, initialRetryTime: 200 } }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length > 0 && cluster.controller !== null;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** REST answers, the master has initialised (default namespace) and a region server holds hbase:meta. */
export async function hbaseRestAnswers(restUrl: string): Promise<boolean> {
  const get = async (path: string): Promise<string | undefined> => {
    try {
      const res = await fetch(`${restUrl}${path}`, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(3000) });
      return res.ok ? await res.text() : undefined;
    } catch {
      return undefined;
    }
  };
  if ((await get('/version/cluster')) === undefined) return false;
  if ((await get('/namespaces/default')) === undefined) return false;
  const status = await get('/status/cluster');
  if (status === undefined) return false;
  const parsed = JSON.parse(status) as { LiveNodes?: { Region?: { name: string }[] }[] };
  return (parsed.LiveNodes ?? []).some((n) => (n.Region ?? []).some((r) => Buffer.from(r.name, 'base64').toString().startsWith('hbase:meta')));
}

/**
 * A REST gateway that answers can still be unable to read its own scanner model: seen here (local
 * rest.log, and a CI run whose every scanner PUT got a bodiless 500) a gateway JVM that comes up with
 * its JSON mappers ignoring the JAXB annotations, so `column` (named only by @XmlElement) is an
 * unknown field of the request and a filter's `comparator` / `ranges` unknown fields of the filter.
 * It lasts for the life of that JVM; a restart clears it. This opens and closes one scanner on
 * hbase:meta with all three; the reason it failed, or undefined when the gateway reads them.
 */
export async function hbaseRestScannerModelFault(restUrl: string): Promise<string | undefined> {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const filter = {
    type: 'FilterList',
    op: 'MUST_PASS_ALL',
    filters: [
      { type: 'RowFilter', op: 'NOT_EQUAL', comparator: { type: 'BinaryComparator', value: b64('~') } },
      { type: 'MultiRowRangeFilter', ranges: [{ startRow: b64('hbase:meta'), startRowInclusive: true, stopRow: b64('hbase:meta~'), stopRowInclusive: false }] },
    ],
  };
  const body = JSON.stringify({ column: [b64('info:regioninfo')], batch: 1, caching: 1, filter: JSON.stringify(filter) });
  let res: Response;
  try {
    res = await fetch(`${restUrl}/hbase:meta/scanner`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    return `no answer to a scanner request (${(err as Error).message})`;
  }
  const location = res.headers.get('location');
  const text = (await res.text()).trim().slice(0, 200);
  if (location !== null) await fetch(location, { method: 'DELETE', signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
  if (res.status === 201) return undefined;
  return `a scanner with a column, a comparator and row ranges answered HTTP ${res.status}${text === '' ? ' with no body' : `: ${text}`}`;
}

/** Starts allowed for a process that answers but is unusable (`fault`), the first included. */
export const MAX_SOUND_STARTS = 3;

/**
 * Waits until the process answers (`started`), then asks `fault`; a fault restarts it (`restart`) and
 * waits again, at most MAX_SOUND_STARTS starts in all; the last fault is an error naming `what`.
 */
export async function untilSound(o: {
  readonly what: string;
  readonly started: () => Promise<void>;
  readonly fault: () => Promise<string | undefined>;
  readonly restart: (fault: string) => Promise<void>;
}): Promise<void> {
  for (let start = 1; ; start++) {
    await o.started();
    const fault = await o.fault();
    if (fault === undefined) return;
    if (start === MAX_SOUND_STARTS) throw new Error(`${o.what} answers but ${fault}, after ${start} starts`);
    await o.restart(fault);
  }
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => {
        res(port);
      });
    });
  });
}

/** Whether `port` of 127.0.0.1 can be bound right now (false: something listens there, on it or on 0.0.0.0). */
export async function portFree(port: number): Promise<boolean> {
  return new Promise((res) => {
    const srv = createServer();
    srv.once('error', () => {
      res(false);
    });
    srv.listen(port, '127.0.0.1', () => {
      srv.close(() => {
        res(true);
      });
    });
  });
}
