/**
 * Reading the scheduler's trace for one thread's wakeups: waking (the waker's CPU), wakeup (the thread on its run
 * queue) and the switch to it, with what its CPU ran when the waking happened.
 */
import { describe, expect, it } from 'vitest';
import { describeWakeups, wakeupsOf } from '../../bench/scale/wakeup-trace';

const line = (task: string, cpu: number, seconds: number, event: string, fields: string) =>
  `  ${task} [00${cpu}] d.s2. ${seconds.toFixed(6)}: ${event}: ${fields}`;
const switchTo = (cpu: number, s: number, prev: string, prevPid: number, next: string, nextPid: number) =>
  line(
    `${prev}-${prevPid}`,
    cpu,
    s,
    'sched_switch',
    `prev_comm=${prev} prev_pid=${prevPid} prev_prio=120 prev_state=S ==> next_comm=${next} next_pid=${nextPid} next_prio=98`,
  );
const waking = (cpu: number, s: number, target: number) =>
  line('arp-gen-9', cpu, s, 'sched_waking', `comm=mlb-arp-answer pid=77 prio=98 target_cpu=00${target}`);
const wakeup = (cpu: number, s: number, target: number) =>
  line('<idle>-0', cpu, s, 'sched_wakeup', `comm=mlb-arp-answer pid=77 prio=98 target_cpu=00${target}`);

const TRACE = [
  '# tracer: nop',
  switchTo(1, 10.0, 'node', 50, 'swapper/1', 0), // CPU 1 goes idle
  waking(0, 10.001, 1), // woken from CPU 0's softirq
  wakeup(1, 10.003, 1), // 2 ms later on CPU 1's queue: the IPI took that long
  switchTo(1, 10.00301, 'swapper/1', 0, 'mlb-arp-answer', 77),
  switchTo(1, 10.004, 'mlb-arp-answer', 77, 'node', 50), // the main thread runs
  waking(0, 10.005, 1),
  wakeup(0, 10.00501, 1),
  switchTo(1, 10.00505, 'node', 50, 'mlb-arp-answer', 77), // preempted the main thread within 40 us
  line('arp-gen-9', 0, 10.006, 'sched_waking', 'comm=other pid=5 prio=120 target_cpu=000'), // another thread: ignored
].join('\n');

describe('wakeupsOf', () => {
  it('times each wakeup in two parts and says what its CPU was running', () => {
    const wakeups = wakeupsOf(TRACE, 'mlb-arp-answer');
    expect(wakeups).toHaveLength(2);
    expect(wakeups[0]!.cpuWas).toBe('idle');
    expect(wakeups[0]!.toQueueUs).toBeCloseTo(2_000, 0);
    expect(wakeups[0]!.toRunUs).toBeCloseTo(10, 0);
    expect(wakeups[1]!.cpuWas).toBe('node');
    expect(wakeups[1]!.toQueueUs).toBeCloseTo(10, 0);
    expect(wakeups[1]!.toRunUs).toBeCloseTo(40, 0);
  });

  it('describes the spread and the slow ones by what their CPU ran', () => {
    const text = describeWakeups(wakeupsOf(TRACE, 'mlb-arp-answer'));
    expect(text).toMatch(/^2 wakeups; /);
    expect(text).toContain('1 over 1.00 ms in all (1 mostly before the run queue; the CPU was running: 1 idle)');
    expect(describeWakeups([])).toBe('no wakeup of the answer thread traced');
  });
});
