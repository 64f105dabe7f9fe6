// A plain HTTP proxy in front of the stack's REST gateway that can hold or delay requests: those
// matching a predicate, once `hold` is called, get no answer until the proxy closes (the gateway never
// sees them); once `delay` is called, matching ones reach the gateway after a random wait. It stands
// for a gateway or region server stuck on one call, or slow, while everything else answers, without
// touching the shared stack.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldingProxy {
  readonly url: string;
  /** from now on, requests for which `match(method, path)` is true are held */
  hold(match: (method: string, path: string) => boolean): void;
  /** from now on, requests for which `match(method, path)` is true reach the gateway after 0 to `maxMs` ms */
  delay(match: (method: string, path: string) => boolean, maxMs: number): void;
  /** requests delayed so far */
  readonly delayed: number;
  /** requests held so far ("METHOD path") */
  readonly held: readonly string[];
  close(): Promise<void>;
}

export async function startHoldingProxy(upstream: string, defer: (fn: () => unknown) => void): Promise<HoldingProxy> {
  const target = new URL(upstream);
  let match: ((method: string, path: string) => boolean) | undefined;
  let slow: { match: (method: string, path: string) => boolean; maxMs: number } | undefined;
  let delayed = 0;
  const held: string[] = [];
  const parked: ServerResponse[] = [];

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const out = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => {
      res.destroy();
    });
    req.pipe(out);
  };

  const server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    if (match?.(method, path) === true) {
      held.push(`${method} ${path}`);
      parked.push(res);
      req.resume();
      return;
    }
    if (slow?.match(method, path) === true) {
      delayed++;
      req.pause();
      setTimeout(() => {
        forward(req, res);
      }, Math.random() * slow.maxMs);
      return;
    }
    forward(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= new Promise<void>((r) => {
      for (const res of parked) res.destroy();
      server.closeAllConnections();
      server.close(() => {
        r();
      });
    }));
  defer(close);
  return {
    url,
    held,
    hold: (m) => {
      match = m;
    },
    delay: (m, maxMs) => {
      slow = { match: m, maxMs };
    },
    get delayed() {
      return delayed;
    },
    close,
  };
}
