/** The details of a selected IP (pure): every candidate in hash order with its reason, or why there is none. */
import { describe, expect, it } from 'vitest';
import { detailLines } from '../../../src/cli/tui/explain-lines';
import { serviceRows, type ServiceRow } from '../../../src/cli/tui/status-rows';
import { exampleExplanations, exampleSnapshot } from '../../daemon/control/fake-daemon';

const webRow = serviceRows(exampleSnapshot())[0]!;

describe('detailLines', () => {
  it("lists every candidate in the daemon's (hash) order with rank, reason and its meaning", async () => {
    const all = await exampleExplanations();
    const web = all.find((e) => e.service === 'demo/web' && e.ip === webRow.ip)!;
    const lines = detailLines(webRow, { ip: webRow.ip!, explanations: all.filter((e) => e.ip === webRow.ip), problem: null }, 80);
    expect(lines[0]).toEqual({ text: `demo/web ${webRow.ip} layer2: ${web.winner} answers for it`, tone: 'title' });
    const candidates = lines.slice(2);
    expect(candidates.map((l) => l.text.trim().split(/\s+/)[1])).toEqual(web.candidates.map((c) => c.node));
    expect(candidates[0]).toMatchObject({
      tone: 'owner',
      text: expect.stringMatching(/^ {2}#1 +\S+ +owner: first in hash order: answers for the IP$/),
    });
    expect(candidates.slice(1).every((l) => l.tone !== 'owner')).toBe(true);
    expect(lines.every((l) => l.text.length <= 80)).toBe(true);
  });

  it("says NOBODY when no candidate is eligible, with each one's reason", () => {
    const explanation = {
      service: 'demo/web',
      ip: webRow.ip!,
      protocol: 'layer2' as const,
      winner: null,
      announcing: [],
      candidates: [
        {
          node: 'node-a',
          rank: null,
          eligible: false,
          reason: 'healthCheckFailing' as const,
          healthCheck: { since: Date.UTC(2026, 11, 1, 17, 20, 1), result: 'HTTP 503' },
        },
        { node: 'node-b', rank: null, eligible: false, reason: 'nodeDraining' as const },
      ],
    };
    const lines = detailLines(webRow, { ip: webRow.ip!, explanations: [explanation], problem: null }, 120);
    expect(lines[0]).toMatchObject({ tone: 'problem', text: expect.stringContaining('NOBODY answers for it') });
    expect(lines.slice(2).map((l) => [l.tone, l.text])).toEqual([
      // Each line names the node it is about: the explanation is one daemon's view of every node.
      [
        'ineligible',
        expect.stringMatching(
          /^ {2}- +node-a +healthCheckFailing: health check demo\/web failing on node-a since 2026-12-01T17:20:01Z: HTTP 503$/,
        ),
      ],
      ['ineligible', expect.stringMatching(/^ {2}- +node-b +nodeDraining: node-b is draining/)],
    ]);
  });

  it('says it is asking, why asking failed, or why a service has no IP', () => {
    expect(detailLines(webRow, null, 80)[1]).toEqual({ text: '  asking the daemon...', tone: 'note' });
    expect(detailLines(webRow, { ip: '10.9.9.9', explanations: [], problem: null }, 80)[1]?.text).toBe('  asking the daemon...');
    expect(detailLines(webRow, { ip: webRow.ip!, explanations: null, problem: 'the daemon refused' }, 80)[1]).toEqual({
      text: '  cannot explain: the daemon refused',
      tone: 'problem',
    });
    expect(detailLines(webRow, { ip: webRow.ip!, explanations: [], problem: null }, 80)[1]?.text).toContain('has not elected anyone');
    const noIP = serviceRows(exampleSnapshot()).find((r) => r.ip === null) as ServiceRow;
    expect(detailLines(noIP, null, 80)).toEqual([
      { text: 'demo/nobody: no IP', tone: 'title' },
      { text: '  poolExhausted: no available IPs in pool "small"', tone: 'problem' },
    ]);
  });
});
