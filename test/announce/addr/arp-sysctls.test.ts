import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readArpSysctls, writeArpSysctl } from '../../../src/announce/addr/arp-sysctls';
import { VipBindError } from '../../../src/announce/addr/vip-bind-error';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A stand-in for /proc/sys/net/ipv4/conf: one directory per scope, one file per sysctl ("0\n", as /proc shows). */
function fakeConf(scopes: Record<string, [number, number]>): string {
  root = mkdtempSync(join(tmpdir(), 'mlb-conf-'));
  for (const [scope, [ignore, announce]] of Object.entries(scopes)) {
    mkdirSync(join(root, scope));
    writeFileSync(join(root, scope, 'arp_ignore'), `${ignore}\n`);
    writeFileSync(join(root, scope, 'arp_announce'), `${announce}\n`);
  }
  return root;
}

describe('ARP sysctl files', () => {
  it('reads conf/all and each interface, leaving an unknown interface undefined and a bad name unread', async () => {
    const conf = fakeConf({ all: [0, 1], eth0: [2, 0] });
    expect(await readArpSysctls(['eth0', 'eth9', '../all'], conf)).toEqual({
      all: { arp_ignore: 0, arp_announce: 1 },
      eth0: { arp_ignore: 2, arp_announce: 0 },
      eth9: undefined,
    });
  });

  it('writes a value where /proc expects it and refuses a name that would leave conf/', async () => {
    const conf = fakeConf({ all: [0, 0], eth0: [0, 0] });
    await writeArpSysctl('eth0', 'arp_ignore', 1, conf);
    expect(readFileSync(join(conf, 'eth0', 'arp_ignore'), 'utf8')).toBe('1\n');
    await expect(writeArpSysctl('../x', 'arp_ignore', 1, conf)).rejects.toThrow(RangeError);
  });

  it('reports a failed write as a typed error naming the sysctl', async () => {
    const conf = fakeConf({ all: [0, 0] });
    const error = await writeArpSysctl('eth9', 'arp_announce', 2, conf).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VipBindError);
    expect(error).toMatchObject({ code: 'sysctlWriteFailed', errno: 'ENOENT', subject: 'net.ipv4.conf.eth9.arp_announce' });
  });
});
