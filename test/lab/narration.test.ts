import { describe, expect, it } from 'vitest';
import {
  downCommandText,
  failoverText,
  labSummary,
  logExcerpt,
  neighbourText,
  readableLogLine,
  seconds,
  timestamp,
} from '../../src/cli/lab/narration';
import { planLab } from '../../src/cli/lab/lab-plan';

describe("the demo's sentences", () => {
  it('writes times as seconds, two decimals below 10 s, in an aligned column', () => {
    expect(seconds(1240)).toBe('1.24');
    expect(seconds(12_345)).toBe('12.3');
    expect(seconds(-5)).toBe('0.00');
    expect(timestamp(3200)).toBe('[  3.20 s]');
    expect(timestamp(63_200)).toBe('[  63.2 s]');
  });

  it('says how long the client went without an answer, and who answers now', () => {
    const text = failoverText(
      { from: 'node-2', to: 'node-3', lastOldAnswer: 980, firstNewAnswer: 2240, gapMs: 1260, failedRequests: 62, oldAnswersAfter: 0 },
      1010,
    );
    expect(text).toBe('answers come from node-3 1.23 s later: the client went 1.26 s without an answer (62 requests failed)');
  });

  it('says so when no request was lost, and when the old owner kept answering', () => {
    const text = failoverText(
      { from: 'node-1', to: 'node-2', lastOldAnswer: 540, firstNewAnswer: 560, gapMs: 20, failedRequests: 0, oldAnswersAfter: 3 },
      0,
    );
    expect(text).toContain('the client lost no request');
    expect(text).toContain('node-1 still answered 3 more times');
  });

  it("names the lab host behind the client's neighbour entry", () => {
    expect(neighbourText({ ip: '172.31.213.200', mac: '02:6d:6c:62:00:12', state: ['REACHABLE'], host: 'node-2' })).toBe(
      "the client's ARP entry points at 02:6d:6c:62:00:12 (node-2)",
    );
    expect(neighbourText({ ip: '172.31.213.200', mac: undefined, state: ['FAILED'] })).toBe('the client has no ARP entry for it (FAILED)');
    expect(neighbourText(undefined, 6)).toBe('the client has no neighbour entry for it');
  });

  it('lists every node with its address and MAC', () => {
    expect(labSummary(planLab({ nodes: 2 }), 2210)).toBe(
      'lab up in 2.21 s: node-1 172.31.213.11 02:6d:6c:62:00:11, node-2 172.31.213.12 02:6d:6c:62:00:12; client 172.31.213.2',
    );
  });

  it("shortens the daemon's JSON log lines to time, level and message", () => {
    const line =
      '{"level":"info","ts":"2026-11-29T10:23:24.018Z","node":"node-3","event":"gossipJoin","msg":"joined through 2 of 2 peers"}';
    expect(readableLogLine(line)).toBe('10:23:24.018 info joined through 2 of 2 peers');
    expect(readableLogLine('plain text')).toBe('plain text');
    expect(logExcerpt('log', `a\nb\n${line}\n`, 2)).toEqual(['log:', '    b', '    10:23:24.018 info joined through 2 of 2 peers']);
    expect(logExcerpt('log', '', 2)).toEqual(['log:', '    (empty)']);
  });

  it('gives the down command with only the flags that differ from the defaults', () => {
    expect(downCommandText(planLab())).toBe('mlb lab down');
    expect(downCommandText(planLab({ name: 'x', dir: '/tmp/x' }))).toBe('mlb lab down --name x --dir /tmp/x');
  });
});
