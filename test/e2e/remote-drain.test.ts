/**
 * `mlb drain NODE` from another host: three plain hosts in network namespaces with a gossip key. The owner of the
 * pinned VIP is drained through a second host's control socket, and the command waits for the owner's answer;
 * the client sees the VIP answered by another MAC, and every host's status says who drained it. A third host
 * undrains it, and the VIP comes back.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { ControlSnapshot } from '../../src/daemon/control/control-snapshot';
import { runMlbAsync } from '../daemon/control/fake-daemon';
import { canUseNetns } from '../support/netns-lab';
import { runMlb } from '../cli/run-cli';
import { API_IP, API_SERVICE, DaemonLab, eventually, WEB_SERVICE } from './daemon-lab';

const netns = canUseNetns();
/** Gossip and the election settle within seconds in the lab; daemons starting on a loaded 2-core machine took 36 s. */
const SETTLE_MS = 60_000;

function drainOf(s: ControlSnapshot, node: string): ControlSnapshot['members'][number]['drain'] {
  return s.members.find((m) => m.name === node)?.drain;
}

describe.skipIf(!netns.ok)(`mlb drain NODE from another host${netns.ok ? '' : ` (skipped: ${netns.why})`}`, () => {
  let lab: DaemonLab | undefined;
  afterAll(() => lab?.destroy());

  it("drains the VIP's owner from a second host, every host shows who asked, and a third host undrains it", async () => {
    const l = new DaemonLab(3);
    lab = l;
    const keyFile = join(l.dir, 'gossip.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64'));
    chmodSync(keyFile, 0o600);
    for (const node of l.nodes) l.start(node.name, ['--gossip-key-file', keyFile]);
    const owners = await l.settled([API_SERVICE, WEB_SERVICE], SETTLE_MS);
    const target = owners.get(API_SERVICE)!;
    const [asker, undrainer] = l.nodes.map((n) => n.name).filter((n) => n !== target) as [string, string];
    expect(l.arpingMacs(API_IP)).toEqual([l.macOf(target)]);

    // A typo names no member: refused before anything is gossiped, with the closest name.
    const typo = await runMlbAsync(['drain', `${target}x`, '--socket', l.socket(asker)]);
    expect(typo.status).toBe(1);
    expect(typo.stderr).toContain(`no member named "${target}x" (did you mean "${target}"?)`);

    const drained = await runMlbAsync(['drain', target, '--socket', l.socket(asker)]);
    expect(drained).toMatchObject({ status: 0, stdout: `${target} drained (asked by ${asker})\n` });

    // The target logged who asked, and stopped announcing: another MAC answers for the VIP.
    const logged = await l.daemon(target).waitFor((line) => line.event === 'nodeDrained');
    expect(logged).toMatchObject({ requestedBy: asker });
    const moved = await eventually(
      () => {
        const macs = l.arpingMacs(API_IP);
        return macs.length === 1 && macs[0] !== l.macOf(target) ? macs[0] : undefined;
      },
      SETTLE_MS,
      200,
    );
    expect(l.nameOfMac(moved)).not.toBe(target);
    expect(l.statusJSON(target).local.announced.map((a) => a.ip)).not.toContain(API_IP);

    // Every host answers the same: the target is drained, by the asker, and it has answered.
    await eventually(
      () =>
        l.nodes.every((n) => {
          const s = l.statusJSON(n.name);
          const d = drainOf(s, target);
          return (
            s.members.find((m) => m.name === target)?.draining === true &&
            d?.action === 'drain' &&
            d.requestedBy === asker &&
            d.outcome === 'applied'
          );
        }) || undefined,
      SETTLE_MS,
      200,
    );
    for (const node of [asker, undrainer]) {
      const once = runMlb(['status', '--once', '--socket', l.socket(node)]);
      expect(once.status).toBe(0);
      expect(once.stdout.split('\n').find((line) => line.startsWith(`${target} `))).toContain(`drained by ${asker}`);
    }

    // A third host undrains it: the later request wins, and the VIP goes back to its owner by hash.
    const undrained = await runMlbAsync(['undrain', target, '--socket', l.socket(undrainer)]);
    expect(undrained).toMatchObject({ status: 0, stdout: `${target} undrained (asked by ${undrainer})\n` });
    expect(await l.daemon(target).waitFor((line) => line.event === 'nodeUndrained')).toMatchObject({ requestedBy: undrainer });
    await eventually(
      () =>
        l.nodes.every((n) => {
          const s = l.statusJSON(n.name);
          const d = drainOf(s, target);
          return (
            s.members.find((m) => m.name === target)?.draining === false &&
            d?.action === 'undrain' &&
            d.requestedBy === undrainer &&
            d.outcome === 'applied' &&
            s.services.find((svc) => svc.service === API_SERVICE)?.owner === target
          );
        }) || undefined,
      SETTLE_MS,
      200,
    );
    await eventually(
      () => {
        const macs = l.arpingMacs(API_IP);
        return macs.length === 1 && macs[0] === l.macOf(target) ? true : undefined;
      },
      SETTLE_MS,
      200,
    );
  }, 180_000);
});
