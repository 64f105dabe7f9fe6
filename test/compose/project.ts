// Helpers of the compose tests: what a compose project left behind, and ports held by "something
// else" (a plain listener on 127.0.0.1) for the time of a test.
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';

export function projectLeftovers(name: string): { containers: string; volumes: string; networks: string } {
  const label = `label=com.docker.compose.project=${name}`;
  const ids = (...args: string[]): string => execFileSync('docker', [...args, '-q', '--filter', label], { encoding: 'utf8' }).trim();
  return { containers: ids('ps', '-a'), volumes: ids('volume', 'ls'), networks: ids('network', 'ls') };
}

/** Listens on each port of 127.0.0.1 that is free; a port already taken is held by someone else, which serves as well. */
export async function holdPorts(ports: readonly number[]): Promise<{ held: number[]; release: () => Promise<void> }> {
  const servers: Server[] = [];
  const held: number[] = [];
  for (const port of ports) {
    const srv = createServer();
    const ok = await new Promise<boolean>((res) => {
      srv.once('error', () => {
        res(false);
      });
      srv.listen(port, '127.0.0.1', () => {
        res(true);
      });
    });
    if (ok) {
      servers.push(srv);
      held.push(port);
    }
  }
  const release = async (): Promise<void> => {
    await Promise.all(
      servers.map(
        (s) =>
          new Promise<void>((res) => {
            s.close(() => {
              res();
            });
          }),
      ),
    );
  };
  return { held, release };
}
