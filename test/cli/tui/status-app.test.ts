/**
 * The `mlb status` TUI rendered by Ink (ink-testing-library) against an in-memory daemon: what an operator sees,
 * what each key does, that a change shows without a key press, and that every frame fits an 80x30 terminal.
 */
import { createElement as h } from 'react';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { StatusApp } from '../../../src/cli/tui/status-app';
import type { FeedTiming } from '../../../src/cli/tui/status-feed';
import type { ControlSnapshot } from '../../../src/daemon/control/control-snapshot';
import { exampleExplanations, exampleSnapshot } from '../../daemon/control/fake-daemon';
import { FakeStatusClient, until } from './fake-status-client';

const DOWN = '\u001B[B';
const UP = '\u001B[A';
const ENTER = '\r';
const ESC = '\u001B';
const TIMING: FeedTiming = { debounceMs: 20, pollMs: 5_000, reconnectMs: 30 };

const mounted: { unmount: () => void }[] = [];
afterEach(() => {
  for (const m of mounted.splice(0)) m.unmount();
});

/** A healthy three-node cluster whose explanations come from the real election of examples/plain-host.yaml. */
async function labLike(): Promise<{ snapshot: ControlSnapshot; client: FakeStatusClient }> {
  const explanations = await exampleExplanations();
  const base = exampleSnapshot();
  // Three IPs with one service each (dns-udp shares dns-tcp's IP: left out), so filtering by IP finds one row.
  const layer2 = explanations.filter((e, i, all) => e.protocol === 'layer2' && all.findIndex((o) => o.ip === e.ip) === i).slice(0, 3);
  const snapshot: ControlSnapshot = {
    ...base,
    config: { ...base.config, state: 'ok', errors: [] },
    members: ['node-a', 'node-b', 'node-c'].map((name) => ({
      name,
      addr: `10.0.0.1${name.at(-1)}:7946`,
      state: 'alive' as const,
      mlb: true,
      labels: {},
      draining: false,
      warmingUp: false,
    })),
    conflicts: [],
    services: layer2.map((e) => ({
      service: e.service,
      ips: [e.ip],
      protocol: 'layer2' as const,
      owner: e.winner,
      announcing: [...e.announcing],
      since: '2024-05-01T09:58:00.000Z',
      health: { checked: false, passing: [], failing: [] },
      allocation: { status: 'ok' },
      candidates: [],
    })),
  };
  return { snapshot, client: new FakeStatusClient(snapshot, explanations) };
}

/** Renders the app and waits until it follows the daemon (its effects, key handling included, are in place). */
async function show(client: FakeStatusClient, snapshot: ControlSnapshot, size?: { columns: number; rows: number }) {
  const app = render(h(StatusApp, { client, initial: snapshot, timing: TIMING }));
  mounted.push(app);
  if (size) {
    Object.defineProperty(app.stdout, 'columns', { value: size.columns, configurable: true });
    Object.defineProperty(app.stdout, 'rows', { value: size.rows, configurable: true });
    app.stdout.emit('resize');
  }
  const frame = () => app.lastFrame() ?? '';
  const lines = () => frame().split('\n');
  const selectedLine = () => lines().find((l) => l.startsWith('> ')) ?? '';
  await until(() => client.following === 1);
  return { app, frame, lines, selectedLine };
}

/** Asserting absence (a key after quit draws nothing): no event can say "no frame is coming", so a few turns pass. */
const settle = () => new Promise((r) => setTimeout(r, 30));

describe('mlb status TUI', () => {
  it('shows the node, the cluster, each service IP with its owner, the members and the events', async () => {
    const { snapshot, client } = await labLike();
    const { frame, lines } = await show(client, snapshot);
    client.record({ type: 'memberJoined', member: 'node-c' });
    await until(() => frame().includes('node-c joined'));
    expect(lines()[0]).toMatch(/^node +node-a \(mlb 0\.1\.0, up 2h20m\)/);
    expect(frame()).toMatch(/^cluster +3\/3 members alive, healthy$/m);
    expect(frame()).toMatch(/^config +ok \/etc\/mlb\/mlb\.yaml$/m);
    expect(frame()).toMatch(/^ {2}SERVICE +IP +PROTOCOL +OWNER +SINCE +HEALTH$/m);
    for (const svc of snapshot.services) {
      expect(frame()).toMatch(new RegExp(`^[ >] ${svc.service} +${svc.ips[0]!.replace(/\./g, '\\.')} +layer2 +${svc.owner} +2m +-$`, 'm'));
    }
    expect(frame()).toMatch(/^NAME +STATE +LABELS +FLAGS$/m);
    expect(frame()).toMatch(/^node-a +alive +- +self$/m);
    expect(frame()).toContain('RECENT EVENTS');
    expect(frame()).toContain('up/down select  Enter why  / filter  q quit');
  });

  it('moves the selection with the arrows', async () => {
    const { snapshot, client } = await labLike();
    const view = await show(client, snapshot);
    expect(view.selectedLine()).toContain(snapshot.services[0]!.ips[0]);
    view.app.stdin.write(DOWN);
    await until(() => view.selectedLine().includes(snapshot.services[1]!.ips[0]!));
    view.app.stdin.write(DOWN);
    view.app.stdin.write(DOWN);
    await until(() => view.selectedLine().includes(snapshot.services[2]!.ips[0]!));
    view.app.stdin.write(UP);
    await until(() => view.selectedLine().includes(snapshot.services[1]!.ips[0]!));
  });

  it("Enter shows every candidate of the selected IP with its reason, from the daemon's explanation", async () => {
    const { snapshot, client } = await labLike();
    const view = await show(client, snapshot);
    view.app.stdin.write(DOWN);
    await until(() => view.selectedLine().includes(snapshot.services[1]!.ips[0]!));
    view.app.stdin.write(ENTER);
    const svc = snapshot.services[1]!;
    const explanation = client.explanations.find((e) => e.ip === svc.ips[0] && e.service === svc.service)!;
    await until(() => view.frame().includes('REASON (every candidate, in hash order)'));
    expect(client.explainAsks.at(-1)).toEqual([svc.ips[0]]);
    expect(view.frame()).toContain(`${svc.service} ${svc.ips[0]} layer2: ${explanation.winner} answers for it`);
    const candidateLines = view.lines().filter((l) => /^ {2}(#\d+|-) +\S+ +\w+: /.test(l));
    expect(candidateLines.map((l) => l.trim().split(/\s+/)[1])).toEqual(explanation.candidates.map((c) => c.node));
    expect(candidateLines[0]).toMatch(/#1 +\S+ +owner: first in hash order/);
    view.app.stdin.write(ENTER);
    await until(() => !view.frame().includes('REASON (every candidate'));
  });

  it('/ filters the service IPs as the operator types; Esc clears the filter', async () => {
    const { snapshot, client } = await labLike();
    const view = await show(client, snapshot);
    const target = snapshot.services[2]!;
    view.app.stdin.write('/');
    await until(() => view.frame().includes('filter: _'), 5_000, view.frame);
    view.app.stdin.write(target.ips[0]!);
    await until(() => view.frame().includes(`(1 of ${snapshot.services.length})`), 5_000, view.frame);
    const rows = view.lines().filter((l) => /^[ >] demo\//.test(l));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain(target.service);
    view.app.stdin.write(ENTER);
    await until(() => view.frame().includes(`"${target.ips[0]}": 1 of `));
    view.app.stdin.write(ESC);
    await until(() => view.lines().filter((l) => /^[ >] demo\//.test(l)).length === snapshot.services.length);
  });

  it('shows an owner change without a key press, within the debounce of its event', async () => {
    const { snapshot, client } = await labLike();
    const view = await show(client, snapshot);
    const svc = snapshot.services[0]!;
    const next = ['node-a', 'node-b', 'node-c'].find((n) => n !== svc.owner)!;
    client.snapshot = {
      ...snapshot,
      services: snapshot.services.map((s) => (s === svc ? { ...s, owner: next, announcing: [next], since: snapshot.generatedAt } : s)),
    };
    const t0 = Date.now();
    client.record({
      type: 'ownerChanged',
      service: svc.service,
      protocol: 'layer2',
      ips: svc.ips,
      from: [svc.owner!],
      to: [next],
      unheldMs: 640,
    });
    await until(() => new RegExp(`${svc.service} +\\S+ +layer2 +${next} +0s`).test(view.frame()));
    expect(Date.now() - t0).toBeLessThan(TIMING.pollMs);
    expect(view.frame()).toContain(`${svc.owner} -> ${next} (unheld 640 ms)`);
  });

  it('says "disconnected, retrying" while the daemon is gone, and recovers', async () => {
    const { snapshot, client } = await labLike();
    const view = await show(client, snapshot);
    client.crash();
    await until(() => view.frame().includes('disconnected, retrying: no control socket'));
    client.down = false;
    await until(() => !view.frame().includes('disconnected'));
  });

  it('shows a stale configuration, a conflict and an IP nobody holds', async () => {
    const client = new FakeStatusClient(exampleSnapshot());
    const view = await show(client, exampleSnapshot(), { columns: 80, rows: 40 });
    await until(() => view.frame().includes('CONFLICTS:'), 5_000, view.frame);
    expect(view.frame()).toMatch(/^config +STALE \/etc\/mlb\/mlb\.yaml: the last good configuration keeps running$/m);
    expect(view.frame()).toMatch(/^ +- \/etc\/mlb\/mlb\.yaml:12:7: spec\.addresses\[0\]/m);
    expect(view.frame()).toContain('CONFLICTS: another MAC answers for an IP a node announces');
    expect(view.frame()).toContain('192.168.10.200 answered by 02:42:ac:11:00:99 (not a member) on eth0');
    expect(view.frame()).toMatch(/^ {2}demo\/nobo\S* +- +layer2 +NOBODY/m);
  });

  it('q quits: the app unmounts and stops following the daemon', async () => {
    const { snapshot, client } = await labLike();
    const view = await show(client, snapshot);
    view.app.stdin.write('q');
    await until(() => client.following === 0);
    const frames = view.app.frames.length;
    view.app.stdin.write(DOWN);
    await settle();
    expect(view.app.frames.length).toBe(frames);
  });

  it('fits every frame into 80x30 (and 60x20), whatever is open', async () => {
    for (const size of [
      { columns: 80, rows: 30 },
      { columns: 60, rows: 20 },
    ]) {
      const snapshot = exampleSnapshot();
      const client = new FakeStatusClient(snapshot, await exampleExplanations());
      const view = await show(client, snapshot, size);
      const framesBefore = view.app.frames.length;
      for (let i = 0; i < 30; i++)
        client.record({
          type: 'configStale',
          file: '/etc/mlb/mlb.yaml',
          errors: [`/etc/mlb/mlb.yaml:${i}:1: ${'a long error '.repeat(10)}`],
        });
      // At 80x30 the last events show; at 60x20 the events give way to the rest: nothing to wait for but the redraw
      // (the feed publishes all 30 in one turn, so the first frame after them has them all).
      if (size.rows >= 30) await until(() => view.frame().includes(':29:1:'), 5_000, view.frame);
      else await until(() => view.app.frames.length > framesBefore, 5_000, view.frame);
      const check = (what: string) => {
        const lines = view.lines();
        expect(
          lines.filter((l) => l.length > size.columns),
          `${what} at ${size.columns}x${size.rows}`,
        ).toEqual([]);
        expect(lines.length, `${what} at ${size.columns}x${size.rows}`).toBeLessThan(size.rows);
      };
      check('the first screen');
      view.app.stdin.write(ENTER);
      await until(() => view.frame().includes('REASON (every candidate'));
      check('details open');
      view.app.stdin.write('/demo');
      await until(() => view.frame().includes('filter: demo_'), 5_000, view.frame);
      check('the filter typed');
      view.app.unmount();
    }
  });
});
