/** The event stream's NDJSON (pure): whatever way the bytes are cut, the client reads the events the daemon wrote. */
import { describe, expect, it } from 'vitest';
import { encodeEventLine, EventLineDecoder, EVENT_LINE_MAX_CHARS, HEARTBEAT_LINE, isDaemonEvent } from '../../../src/daemon/control';
import type { DaemonEvent } from '../../../src/daemon/daemon-events';

const events: DaemonEvent[] = [
  { seq: 1, at: '2024-05-01T10:00:00.000Z', type: 'memberJoined', member: 'node-b' },
  {
    seq: 2,
    at: '2024-05-01T10:00:01.000Z',
    type: 'ownerChanged',
    service: 'demo/web',
    protocol: 'layer2',
    ips: ['192.168.10.200'],
    from: ['node-a'],
    to: ['node-b'],
    unheldMs: 850,
  },
  {
    seq: 3,
    at: '2024-05-01T10:00:02.000Z',
    type: 'configStale',
    file: '/etc/mlb/mlb.yaml',
    errors: ['/etc/mlb/mlb.yaml:3:1: naïve “quotes” break nothing'],
  },
];

describe('EventLineDecoder', () => {
  it('reads the same events however the text is cut, heartbeats skipped', () => {
    const text = [
      encodeEventLine(events[0]!),
      HEARTBEAT_LINE,
      encodeEventLine(events[1]!),
      HEARTBEAT_LINE,
      HEARTBEAT_LINE,
      encodeEventLine(events[2]!),
    ].join('');
    for (let cut = 0; cut <= text.length; cut++) {
      const decoder = new EventLineDecoder();
      const lines = [...decoder.push(text.slice(0, cut)), ...decoder.push(text.slice(cut))];
      expect(lines, `cut at ${cut}`).toEqual(events.map((event) => ({ kind: 'event', event })));
      expect(decoder.pending).toBe('');
    }
  });

  it('holds a line until its newline arrives', () => {
    const decoder = new EventLineDecoder();
    const line = encodeEventLine(events[0]!);
    expect(decoder.push(line.slice(0, -1))).toEqual([]);
    expect(decoder.pending).toBe(line.slice(0, -1));
    expect(decoder.push('\n')).toEqual([{ kind: 'event', event: events[0] }]);
  });

  it('reports a line that is not JSON or not an event, and keeps decoding after it', () => {
    const decoder = new EventLineDecoder();
    const lines = decoder.push(`SSH-2.0-OpenSSH\n{"seq":0,"at":"x","type":"memberJoined"}\n[1,2]\n${encodeEventLine(events[0]!)}`);
    expect(lines.map((l) => l.kind)).toEqual(['invalid', 'invalid', 'invalid', 'event']);
    expect(lines[0]).toMatchObject({ problem: expect.stringContaining('not JSON') });
    expect(lines[1]).toMatchObject({ problem: expect.stringContaining('not an event') });
  });

  it('gives up on a line longer than any event instead of buffering without end', () => {
    const decoder = new EventLineDecoder();
    expect(decoder.push('x'.repeat(EVENT_LINE_MAX_CHARS))).toEqual([]);
    expect(decoder.push('xx')).toEqual([{ kind: 'invalid', problem: expect.stringContaining('exceeds') }]);
    expect(decoder.pending).toBe('');
  });
});

describe('isDaemonEvent', () => {
  it('accepts an event type it does not know (a newer daemon), and nothing without seq, at and type', () => {
    expect(isDaemonEvent({ seq: 9, at: '2024-05-01T10:00:00.000Z', type: 'bgpSessionUp', peer: '10.0.0.1' })).toBe(true);
    expect(isDaemonEvent({ seq: '9', at: 'x', type: 'memberJoined' })).toBe(false);
    expect(isDaemonEvent({ seq: 1.5, at: 'x', type: 'memberJoined' })).toBe(false);
    expect(isDaemonEvent({ seq: 1, type: 'memberJoined' })).toBe(false);
    expect(isDaemonEvent(null)).toBe(false);
  });
});
