/**
 * Plain HTTP sent to the HTTPS port gets a plain-HTTP answer that says so, instead of a connection
 * closed without a word. OpenSSL recognises an HTTP request line where a TLS handshake should be
 * (GET, POST, HEAD, PUT; CONNECT) and the handshake fails with ERR_SSL_HTTP_REQUEST: the TLS server
 * reports it as 'tlsClientError', and the answer is written in plain text on the TCP connection under
 * the failed TLS socket, which the server closes as before. Nothing is read before TLS sees the bytes,
 * so TLS clients are served exactly as without this.
 */
import type { Socket } from 'node:net';
import type { Server as TlsServer } from 'node:tls';

/** What a plain-HTTP client is told: a complete HTTP/1.1 400 with a JSON body naming the https URL. */
export function httpsRequiredAnswer(port: number): string {
  const body = JSON.stringify({
    error: 'https_required',
    message: `this port speaks HTTPS only: use https://<host>:${port}/ (with the CA that signed the service's certificate, e.g. curl --cacert)`,
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

/** The handshake errors OpenSSL gives for a plain HTTP request (and a proxy's CONNECT) on a TLS port. */
const PLAIN_HTTP_ERRORS = new Set(['ERR_SSL_HTTP_REQUEST', 'ERR_SSL_HTTPS_PROXY_REQUEST']);

const peerOf = (s: Pick<Socket, 'remoteAddress' | 'remotePort'>): string => `${s.remoteAddress ?? ''}|${String(s.remotePort ?? '')}`;

/** Installs the answer on `server`: see the file's comment. */
export function answerPlainHttp(server: TlsServer): void {
  // The TCP connections by peer address, while open: a failed TLS socket leads to its own.
  const connections = new Map<string, Socket>();
  server.prependListener('connection', (socket: Socket) => {
    const peer = peerOf(socket);
    connections.set(peer, socket);
    socket.once('close', () => connections.delete(peer));
  });
  server.on('tlsClientError', (err: Error & { code?: string }, tlsSocket) => {
    if (err.code === undefined || !PLAIN_HTTP_ERRORS.has(err.code)) return;
    const tcp = connections.get(peerOf(tlsSocket));
    if (tcp?.writable === true) tcp.end(httpsRequiredAnswer(tcp.localPort ?? 0));
  });
}
