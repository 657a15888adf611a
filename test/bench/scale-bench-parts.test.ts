// The pure parts of bench/scale: what its table says about a measurement (a timeout or a failure is never a met
// target), how it reads a process's CPU time and memory from /proc, which ARP requests the "while binding" row
// holds to its targets, and the configuration it feeds the daemon.
import { describe, expect, it } from 'vitest';
import { firstAnswerAtMs, referenceStats, slowAfterBound, whileBindingStats, type RequestLog } from '../../bench/scale/arp-samples';
import { answerTimesSince, describeAnswerTimes, parseAnswerTimes, quantileBound } from '../../bench/scale/answer-times';
import { parseCpuTicks, parseCpuTimes, parseStatusBytes, stealPercent } from '../../bench/scale/proc-stat';
import { MAX_SERVICES, parseBriefAddresses, scaleConfig, vipOf, vipsOf } from '../../bench/scale/scale-config';
import { formatMeasured, formatTable, targetsFor, verdict, type Row } from '../../bench/scale/scale-rows';

const MB = 1024 * 1024;

describe('bench/scale table', () => {
  const rss = (measured: Row['measured']): Row => ({ what: 'RSS', size: '1000', unit: 'bytes', measured, target: { max: 80 * MB } });

  it('meets a target only with a value at or under it', () => {
    expect(verdict(rss({ kind: 'value', value: 80 * MB }))).toBe('yes');
    expect(verdict(rss({ kind: 'value', value: 80 * MB + 1 }))).toBe('no');
    expect(verdict(rss({ kind: 'value', value: NaN }))).toBe('no');
  });

  it('never counts a timeout, a failure or a row it could not measure as met', () => {
    expect(verdict(rss({ kind: 'timeout', afterMs: 1 }))).toBe('no');
    expect(verdict(rss({ kind: 'failed', why: 'crashed' }))).toBe('no');
    expect(verdict(rss({ kind: 'skipped', why: 'daemon exited' }))).toBe('no');
    expect(verdict({ what: 'info', size: '-', unit: 'count', measured: { kind: 'value', value: 3 } })).toBe('-');
  });

  it('reads a row cut at its time limit as "> N s (timeout)"', () => {
    expect(formatMeasured({ kind: 'timeout', afterMs: 90_000, detail: '4123/10000 bound' }, 'ms')).toBe(
      '> 90.00 s (timeout) (4123/10000 bound)',
    );
  });

  it('prints what | size | measured | target | ok with aligned columns', () => {
    const lines = formatTable([
      {
        what: 'start -> every VIP bound on mlb0',
        size: '1000',
        unit: 'ms',
        measured: { kind: 'value', value: 2_200 },
        target: { max: 1_000 },
      },
      {
        what: 'ARP p50 / kernel',
        size: '10000',
        unit: 'ratio',
        measured: { kind: 'value', value: 1.5 },
        target: { max: 2, text: '<= 2x' },
      },
    ]);
    expect(lines).toEqual([
      'what                             | size  | measured | target    | ok',
      'start -> every VIP bound on mlb0 | 1000  | 2.20 s   | <= 1.00 s | no',
      'ARP p50 / kernel                 | 10000 | 1.50x    | <= 2x     | yes',
    ]);
  });

  it('holds sizes up to 1,000 to the 1,000 column and larger ones to the 10,000 column', () => {
    expect(targetsFor(1_000)).toEqual({ rssBytes: 80 * MB, bindMs: 1_000, idleCpuPercent: 1 });
    expect(targetsFor(10_000)).toEqual({ rssBytes: 150 * MB, bindMs: 3_000, idleCpuPercent: 2 });
  });
});

describe('bench/scale /proc parsing', () => {
  it('takes utime + stime after the command name, even one holding spaces and parentheses', () => {
    const stat = '4242 (node (mlb) x) S 1 4242 4242 0 -1 4194560 9182 0 0 0 1234 567 0 0 20 0 11 0 99 1 2 3';
    expect(parseCpuTicks(stat)).toBe(1234 + 567);
    expect(parseCpuTicks('garbage')).toBeUndefined();
  });

  it('reads VmRSS and VmHWM in bytes', () => {
    const status = 'Name:\tnode\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n';
    expect(parseStatusBytes(status, 'VmRSS')).toBe(100 * MB);
    expect(parseStatusBytes(status, 'VmHWM')).toBe(200 * MB);
    expect(parseStatusBytes('Name:\tnode\n', 'VmRSS')).toBeUndefined();
  });
});

describe('bench/scale ARP while binding', () => {
  // Two requests per target; target 0 bound at epoch 1_000 ms, target 1 never.
  const log: RequestLog = {
    t0EpochMs: 900,
    target: Uint32Array.from([0, 0, 1, 0]),
    sentUs: Float64Array.from([50_000, 150_000, 160_000, 170_000]), // at 950, 1050, 1060, 1070 ms
    latUs: Float64Array.from([NaN, 300, 400, NaN]),
  };
  const boundAt = (i: number) => (i === 0 ? 1_000 : undefined);

  it('holds to the targets only the requests for a VIP seen bound before they left', () => {
    const stats = whileBindingStats([log], boundAt, 100_000);
    expect(stats).toMatchObject({ requests: 2, answered: 1, lost: 1, beforeBound: 2, beforeBoundAnswered: 1 });
    expect(stats.p50Us).toBe(300);
  });

  it('counts a reply later than the timeout as lost', () => {
    expect(whileBindingStats([log], boundAt, 200).lost).toBe(2);
  });

  it("keeps the kernel's own address (the reference targets) apart, counted from the first VIP bound", () => {
    // Target 1 is the reference here: not a VIP, so neither held nor "before bound".
    expect(whileBindingStats([log], boundAt, 100_000, 1)).toMatchObject({ requests: 2, beforeBound: 1 });
    // The reference requests sent from 1,000 ms on: the one at 1,060 ms, answered in 400 µs.
    expect(referenceStats([log], 1, 100_000, 1_000)).toMatchObject({ requests: 1, answered: 1, p50Us: 400 });
    expect(referenceStats([log], 1, 100_000, 1_061).requests).toBe(0);
  });

  it('counts the slow requests for bound VIPs, and those sent soon after the look that saw their VIP bound', () => {
    // Target 0 bound at 1,000 ms: the requests at 1,050 (300 us) and 1,070 ms (lost) are held; only the lost one is slow.
    const limits = (slowUs: number, soonMs: number) => ({ slowUs, soonMs, timeoutUs: 100_000 });
    expect(slowAfterBound([log], boundAt, limits(1_000, 100))).toEqual({ slow: 1, soonAfterBound: 1, lost: 1, lostSoonAfterBound: 1 });
    expect(slowAfterBound([log], boundAt, limits(1_000, 50))).toEqual({ slow: 1, soonAfterBound: 0, lost: 1, lostSoonAfterBound: 0 });
    expect(slowAfterBound([log], boundAt, limits(100, 100))).toEqual({ slow: 2, soonAfterBound: 2, lost: 1, lostSoonAfterBound: 1 });
    // A reply later than the timeout is lost too.
    expect(slowAfterBound([log], boundAt, { slowUs: 100, soonMs: 100, timeoutUs: 200 })).toMatchObject({ lost: 2 });
  });

  it('finds when a VIP was first answered', () => {
    expect(firstAnswerAtMs(log)).toBeCloseTo(900 + 150 + 0.3);
    expect(firstAnswerAtMs({ ...log, latUs: new Float64Array(4).fill(NaN) })).toBeUndefined();
  });
});

describe('bench/scale configuration', () => {
  it('gives every service its own VIP, never a .0 or .255', () => {
    const vips = vipsOf(MAX_SERVICES);
    expect(new Set(vips).size).toBe(MAX_SERVICES);
    expect(vips.some((ip) => ip.endsWith('.0') || ip.endsWith('.255'))).toBe(false);
    expect(() => vipOf(MAX_SERVICES)).toThrow(RangeError);
  });

  it('writes one pinned Service per VIP', () => {
    const text = scaleConfig(3, 'reload 1');
    expect(text.match(/kind: Service\n/g)).toHaveLength(3);
    expect(text).toContain(`metallb.io/loadBalancerIPs: ${vipOf(2)}`);
    expect(text.endsWith('# reload 1\n')).toBe(true);
  });

  it('reads the addresses of `ip -br addr show`', () => {
    expect(parseBriefAddresses('mlb0             UNKNOWN        10.214.16.1/32 10.214.16.2/32 \n')).toEqual(['10.214.16.1', '10.214.16.2']);
    expect(parseBriefAddresses('')).toEqual([]);
  });
});

describe("bench/scale: the answer thread's stages from the metrics page", () => {
  const page = (queued: number[], answering: number[]) =>
    [
      '# HELP mlb_arp_fast_path_answer_seconds How long',
      '# TYPE mlb_arp_fast_path_answer_seconds histogram',
      ...['0.00001', '0.001', '+Inf'].map((le, i) => `mlb_arp_fast_path_answer_seconds_bucket{stage="queued",le="${le}"} ${queued[i]}`),
      ...['0.00001', '0.001', '+Inf'].map(
        (le, i) => `mlb_arp_fast_path_answer_seconds_bucket{stage="answering",le="${le}"} ${answering[i]}`,
      ),
      'mlb_arp_fast_path_answer_seconds_sum{stage="queued"} 0.1',
      'metallb_layer2_requests_received{ip="10.0.0.1"} 7',
    ].join('\n');

  it('reads cumulative buckets per stage, and the bucket bound each quantile falls in', () => {
    const times = parseAnswerTimes(page([90, 99, 100], [100, 100, 100]))!;
    expect(times.queued).toEqual([
      [0.00001, 90],
      [0.001, 99],
      [Number.POSITIVE_INFINITY, 100],
    ]);
    expect(quantileBound(times.queued, 0.5)).toBe(0.00001);
    expect(quantileBound(times.queued, 0.99)).toBe(0.001);
    expect(quantileBound(times.queued, 0.999)).toBe(Number.POSITIVE_INFINITY);
    expect(quantileBound(times.answering, 0.99)).toBe(0.00001);
    expect(describeAnswerTimes(times)).toBe('100 answers; queued p50 <= 10 µs, p99 <= 1.00 ms; answering p50 <= 10 µs, p99 <= 10 µs');
  });

  it('a window is the difference of two scrapes; a page without the series (nothing answered) reads as none', () => {
    const before = parseAnswerTimes(page([10, 10, 10], [10, 10, 10]))!;
    const after = parseAnswerTimes(page([10, 15, 20], [20, 20, 20]))!;
    const window = answerTimesSince(after, before);
    expect(window.queued.map(([, n]) => n)).toEqual([0, 5, 10]);
    expect(quantileBound(window.queued, 0.5)).toBe(0.001);
    expect(quantileBound(answerTimesSince(before, before).queued, 0.5)).toBeUndefined();
    expect(parseAnswerTimes('metallb_layer2_requests_received{ip="10.0.0.1"} 7')).toBeUndefined();
  });
});

describe('bench/scale: the CPU time a hypervisor took (/proc/stat steal)', () => {
  const stat = (cpu0: number[], cpu1: number[]) =>
    [`cpu  ${cpu0.map((v, i) => v + cpu1[i]!).join(' ')}`, `cpu0 ${cpu0.join(' ')}`, `cpu1 ${cpu1.join(' ')}`, 'intr 1 2 3'].join('\n');

  it('reads each CPU (not the total line) and gives its stolen share between two readings', () => {
    // user nice system idle iowait irq softirq steal guest guest_nice
    const before = parseCpuTimes(stat([100, 0, 50, 800, 0, 0, 10, 40, 7, 0], [100, 0, 50, 850, 0, 0, 0, 0, 0, 0]));
    const after = parseCpuTimes(stat([150, 0, 60, 830, 0, 0, 10, 50, 9, 0], [200, 0, 50, 950, 0, 0, 0, 0, 0, 0]));
    expect([...before.keys()]).toEqual([0, 1]);
    expect(before.get(0)).toEqual({ steal: 40, total: 1000 });
    const stolen = stealPercent(before, after);
    expect(stolen.get(0)).toBeCloseTo(10); // 10 of 100 ticks (guest time is inside user, not counted twice)
    expect(stolen.get(1)).toBe(0);
  });
});
