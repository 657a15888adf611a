/** `mlb status --once` rendering (pure): whatever the terminal width, no line is wider; with room, nothing is cut. */
import { describe, expect, it } from 'vitest';
import { renderStatus } from '../../src/cli/commands/status';
import { formatAge } from '../../src/cli/text/format-age';
import { headerModel } from '../../src/cli/tui/status-rows';
import { exampleSnapshot } from '../daemon/control/fake-daemon';

describe('renderStatus', () => {
  it('keeps every line within the width, from a narrow terminal to a wide one', () => {
    for (let width = 40; width <= 140; width++) {
      const tooWide = renderStatus(exampleSnapshot(), width)
        .split('\n')
        .filter((l) => l.length > width);
      expect(tooWide, `width ${width}`).toEqual([]);
    }
  });

  it('cuts nothing when the terminal is wide enough', () => {
    const text = renderStatus(exampleSnapshot(), 300);
    expect(text).not.toContain('…');
    expect(text).toContain('a-namespace-with-a-long-name/a-service-with-an-even-longer-name');
    expect(text).toContain('topology.kubernetes.io/zone=rack-2-with-a-long-name');
  });

  it('says when no service has an IP', () => {
    expect(renderStatus({ ...exampleSnapshot(), services: [] }, 80)).toContain('no service has an IP to announce');
  });
});

describe('a node warming up', () => {
  const warming = () => {
    const s = exampleSnapshot();
    return { ...s, node: { ...s.node, warmingUp: true, warmUpUntil: '2024-05-01T00:00:42.000Z', warmUpLeftMs: 41_200 } };
  };

  it('shows the time left, rounded up, in `mlb status --once` and the TUI header, and how to end it', () => {
    expect(renderStatus(warming(), 200)).toMatch(/^node\s+node-a \(mlb [^)]*\): warming up, 42s left \(mlb warmup end ends it now\)$/m);
    expect(headerModel(warming()).node).toContain(': warming up, 42s left');
  });
});

describe('formatAge', () => {
  it('reads like a person says it', () => {
    const t0 = '2024-05-01T00:00:00Z';
    const at = (seconds: number) => new Date(Date.parse(t0) + seconds * 1000).toISOString();
    expect([0, 59, 60, 3599, 3600, 3660, 86_399, 86_400, 90_000].map((s) => formatAge(t0, at(s)))).toEqual([
      '0s',
      '59s',
      '1m',
      '59m',
      '1h',
      '1h1m',
      '23h59m',
      '1d',
      '1d1h',
    ]);
    expect(formatAge(at(10), t0)).toBe('0s');
    expect(formatAge('garbage', t0)).toBe('0s');
  });
});

describe('renderStatus with configurations that differ', () => {
  const differing = () => ({
    ...exampleSnapshot(),
    configAgreement: {
      digest: '0011223344556677',
      services: 3,
      divergent: [
        {
          node: 'node-b',
          digest: '8899aabbccddeeff',
          services: 2,
          lacks: ['demo/web'],
          extra: 0,
          message: "node-b's configuration differs from this node's (2 services vs 3): it lacks demo/web",
        },
      ],
      awaiting: [],
      silent: [],
      retained: [{ service: 'demo/db', definedBy: ['node-b'] }],
      withheld: [{ service: 'demo/old', ips: ['192.0.2.9'], definedBy: ['node-b'] }],
    },
  });

  it('names the node whose file differs, what this node retains and what the allocator keeps', () => {
    const text = renderStatus(differing(), 300);
    expect(text).toContain("differs   - node-b's configuration differs from this node's (2 services vs 3): it lacks demo/web");
    expect(text).toContain("demo/db: no longer in this node's file; still announced from the last good definition (defined by node-b)");
    expect(text).toContain("demo/old: not in this node's file; allocation 192.0.2.9 kept (defined by node-b)");
  });

  it('says nothing about it when every member agrees', () => {
    const agreeing = { ...differing(), configAgreement: { ...differing().configAgreement, divergent: [], retained: [], withheld: [] } };
    expect(renderStatus(agreeing, 300)).not.toContain('differs');
  });
});
