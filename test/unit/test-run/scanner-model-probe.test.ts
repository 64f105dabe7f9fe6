// The stack's "can the gateway read a scanner request" probe, against a stand-in HTTP server that
// answers as the healthy and the broken gateways were seen to (the real one: every integration run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hbaseRestScannerModelFault } from '../../../scripts/lib/stack/probes.ts';

async function gateway(
  answer: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push(`${req.method ?? ''} ${req.url ?? ''}`);
      answer(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    close: () =>
      new Promise((r) =>
        server.close(() => {
          r();
        }),
      ),
  };
}

void test('a gateway that opens the scanner passes, and the scanner is closed again', async () => {
  let sent: Record<string, unknown> = {};
  const g = await gateway((req, body, res) => {
    if (req.method === 'PUT') {
      sent = JSON.parse(body) as Record<string, unknown>;
      res.writeHead(201, { location: `http://${req.headers.host ?? ''}/hbase:meta/scanner/123` }).end();
    } else res.writeHead(200).end();
  });
  try {
    assert.equal(await hbaseRestScannerModelFault(g.url), undefined);
    assert.deepEqual(g.seen, ['PUT /hbase:meta/scanner', 'DELETE /hbase:meta/scanner/123']);
    // the fields a broken gateway cannot read: a column, and a filter with a comparator and row ranges
    assert.ok(Array.isArray(sent['column']));
    assert.match(String(sent['filter']), /"comparator"/);
    assert.match(String(sent['filter']), /"ranges"/);
  } finally {
    await g.close();
  }
});

void test('a bodiless 500 and a 400 naming the field are faults, with what was answered', async () => {
  const broken = await gateway((_req, _body, res) => res.writeHead(500).end());
  const filters = await gateway((_req, _body, res) => res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad request\r\n'));
  try {
    assert.match((await hbaseRestScannerModelFault(broken.url)) ?? '', /HTTP 500 with no body/);
    assert.match((await hbaseRestScannerModelFault(filters.url)) ?? '', /HTTP 400: Bad request/);
  } finally {
    await broken.close();
    await filters.close();
  }
});
