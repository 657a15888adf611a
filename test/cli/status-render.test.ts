/** `mlb status --once` rendering (pure): whatever the terminal width, no line is wider; with room, nothing is cut. */
import { describe, expect, it } from 'vitest';
import { formatAge, renderStatus } from '../../src/cli/commands/status';
import { exampleSnapshot } from '../daemon/control/fake-daemon';

describe('renderStatus', () => {
  it('keeps every line within the width, from a narrow terminal to a wide one', () => {
    for (let width = 40; width <= 140; width++) {
      const tooWide = renderStatus(exampleSnapshot(), width).split('\n').filter((l) => l.length > width);
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

describe('formatAge', () => {
  it('reads like a person says it', () => {
    const t0 = '2024-05-01T00:00:00Z';
    const at = (seconds: number) => new Date(Date.parse(t0) + seconds * 1000).toISOString();
    expect([0, 59, 60, 3599, 3600, 3660, 86_399, 86_400, 90_000].map((s) => formatAge(t0, at(s)))).toEqual(
      ['0s', '59s', '1m', '59m', '1h', '1h1m', '23h59m', '1d', '1d1h'],
    );
    expect(formatAge(at(10), t0)).toBe('0s');
    expect(formatAge('garbage', t0)).toBe('0s');
  });
});
