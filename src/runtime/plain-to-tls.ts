/**
 * Plain HTTP sent to the HTTPS port gets a plain-HTTP answer that says so, instead of a connection
 * closed without a word (OpenSSL's "http request" handshake error). The TLS server's connections are
 * looked at before TLS sees them: one whose first byte starts an HTTP request line (an upper-case
 * ASCII letter: GET, POST, …; a TLS handshake record starts with 0x16) is answered 400 in plain HTTP
 * and closed; every other one goes to the server's own TLS handling, its first bytes put back.
 * A connection that sends nothing is closed after `firstByteTimeoutMs` (TLS's handshake timeout).
 */
import type { Socket } from 'node:net';
import type { Server as TlsServer } from 'node:tls';

/** What a plain-HTTP client is told; `host` is the request's Host header when it is a plain host[:port]. */
export function httpsRequiredAnswer(host: string | undefined, port: number): string {
  const where = host ?? `<host>:${port}`;
  const body = JSON.stringify({
    error: 'https_required',
    message: `this port speaks HTTPS only: use https://${where}/ (with the CA that signed the service's certificate, e.g. curl --cacert)`,
  });
  return [
    'HTTP/1.1 400 Bad Request',
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    'cache-control: no-store',
    'connection: close',
    '',
    body,
  ].join('\r\n');
}

/** The Host header of a request's first bytes, when it is a plain host[:port] (anything else could forge the answer). */
export function hostOf(head: string): string | undefined {
  const host = /\r\nhost:[ \t]*([^\r\n]*)/i.exec(head)?.[1]?.trim();
  return host !== undefined && /^[A-Za-z0-9.:[\]-]{1,255}$/.test(host) ? host : undefined;
}

/** An upper-case ASCII letter: the first byte of an HTTP/1 request line. */
const looksLikeHttp = (byte: number | undefined): boolean => byte !== undefined && byte >= 0x41 && byte <= 0x5a;

/** Installs the look at the first byte on `server` (before it listens): see the file's comment. */
export function answerPlainHttp(server: TlsServer, firstByteTimeoutMs = 120_000): void {
  const tlsListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const ignore = (): void => undefined; // a reset before the first byte: nothing to answer
    socket.on('error', ignore);
    socket.setTimeout(firstByteTimeoutMs, () => socket.destroy());
    socket.once('data', (chunk: Buffer) => {
      socket.setTimeout(0);
      if (looksLikeHttp(chunk[0])) {
        socket.resume(); // read and drop the rest of the request
        socket.end(httpsRequiredAnswer(hostOf(chunk.toString('latin1')), socket.localPort ?? 0));
        return;
      }
      socket.off('error', ignore);
      socket.pause();
      socket.unshift(chunk);
      for (const listener of tlsListeners) listener.call(server, socket);
      process.nextTick(() => socket.resume());
    });
  });
}
