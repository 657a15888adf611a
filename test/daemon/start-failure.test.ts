/**
 * A start that fails says which file, address or module, and closes what it had already opened: the speaker is
 * started in this process with a control socket it cannot create, after gossip has bound its port.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/daemon/logger';
import { assembleSpeaker } from '../../src/daemon/speaker-assembly';
import { StartError, startError, startFailureReason } from '../../src/daemon/start-failure';
import { SWIM_PROFILES } from '../../src/gossip/swim';
import { NetworkError } from '../../src/runtime';
import { freeLoopbackPort } from '../support/free-port';

const dir = mkdtempSync(join(tmpdir(), 'mlb-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function errno(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

describe('startFailureReason', () => {
  it('names the missing module instead of a require stack', () => {
    const missing = errno('MODULE_NOT_FOUND', "Cannot find module 'netlink'\nRequire stack:\n- /opt/mlb/mlb.mjs");
    expect(startFailureReason(missing)).toMatch(/^the Node\.js module 'netlink' is not installed/);
    expect(startFailureReason(errno('ERR_MODULE_NOT_FOUND', "Cannot find package 'yaml' imported from /x.mjs"))).toContain("'yaml'");
  });

  it('says a directory is not a file, and the step names the path', () => {
    const error = startError('reading the configuration file /etc/mlb', errno('EISDIR', 'EISDIR: illegal operation on a directory, read'));
    expect(error).toBeInstanceOf(StartError);
    expect(error.code).toBe('startFailed');
    expect(error.errno).toBe('EISDIR');
    expect(error.message).toBe('reading the configuration file /etc/mlb: it is a directory, not a file (EISDIR)');
  });

  it('finds the socket error inside a NetworkError', () => {
    const bind = new NetworkError('bindFailed', 'cannot listen on TCP 192.0.2.1:7946: listen EADDRNOTAVAIL', {
      cause: errno('EADDRNOTAVAIL', 'listen EADDRNOTAVAIL: address not available 192.0.2.1:7946'),
    });
    const error = startError('listening for gossip on 192.0.2.1:7946 (--gossip-bind)', bind);
    expect(error.errno).toBe('EADDRNOTAVAIL');
    expect(error.message).toBe(
      'listening for gossip on 192.0.2.1:7946 (--gossip-bind): no interface of this host has that address (EADDRNOTAVAIL)',
    );
  });

  it('keeps the first line of any other error', () => {
    expect(startFailureReason(new Error('first\nsecond'))).toBe('first');
  });
});

/** Resolves true when the port can be listened on again (TCP), i.e. nobody in this process still holds it. */
async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  const ok = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(true));
  });
  if (ok) await new Promise<void>((resolve) => server.close(() => resolve()));
  return ok;
}

describe('Speaker.start failing', () => {
  it('closes the gossip sockets and the file watcher it opened, and names the socket path', async () => {
    const notADirectory = join(dir, 'plain-file');
    writeFileSync(notADirectory, '');
    const port = await freeLoopbackPort();
    const lines: string[] = [];
    const speaker = assembleSpeaker({
      nodeName: 'node-a',
      configFile: 'examples/plain-host.yaml',
      bind: { host: '127.0.0.1', port },
      join: [],
      stateDir: join(dir, 'state'),
      nodeLabels: {},
      gossipConfig: SWIM_PROFILES.fast,
      profileName: 'fast',
      logger: createLogger({ level: 'debug', destination: { write: (l: string) => lines.push(l) } as unknown as NodeJS.WritableStream }),
      announce: false,
      controlSocket: join(notADirectory, 'mlb.sock'),
      version: 'test',
    });
    const before = process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;
    const failure = await speaker.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(StartError);
    expect((failure as StartError).message).toContain(`opening the control socket ${join(notADirectory, 'mlb.sock')}: `);
    // Gossip had bound the port before the control socket failed: it is free again, and no watcher is left.
    expect(lines.some((l) => l.includes('"gossipStarted"'))).toBe(true);
    expect(await portIsFree(port)).toBe(true);
    expect(process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length).toBe(before);
  });
});
