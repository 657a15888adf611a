// The self-check and the health monitor on a runtime that is a class instance (VirtualRuntime, whose now() reads
// its own fields): they must call now() through the runtime. Taking the method off the object (`runtime.now`)
// threw "Cannot read properties of undefined" at the first membership change or health result, which stopped a
// virtual cluster's speakers as soon as either was wired in.
import { describe, expect, it } from 'vitest';
import { SelfChecker } from '../../src/daemon/self-check/self-checker';
import { HealthMonitor } from '../../src/daemon/health/health-monitor';
import { parseHealthCheck } from '../../src/daemon/health/health-check-spec';
import { virtualRuntime } from '../../src/runtime';
import { parseIP, type IP } from '../../src/ip';
import { parseMAC } from '../../src/announce/l2/mac-address';
import { SILENT_LOG } from '../../src/runtime/log';

const VIP = parseIP('192.0.2.10') as IP;

describe('a runtime whose now() is a method of a class', () => {
  it('stamps a self-check conflict with the runtime clock', async () => {
    const runtime = virtualRuntime({ seed: 1 });
    const checker = new SelfChecker({
      logger: SILENT_LOG,
      runtime,
      probe: async () => ({ sent: true, macs: [], socketErrors: [] }),
      interfaces: () => [{ name: 'eth0', mac: parseMAC('02:00:00:00:00:01'), up: true, addresses: [] }],
    });
    checker.setOwned([{ ip: VIP, interface: 'eth0' }]);
    checker.membershipChanged();
    checker.observe({ ip: VIP, mac: parseMAC('02:00:00:00:00:99')!, interface: 'eth0', evidence: 'arpAnnouncement' });
    expect(checker.conflicts().map((c) => [c.mac, c.firstSeen])).toEqual([['02:00:00:00:00:99', new Date(runtime.now()).toISOString()]]);
    checker.close();
  });

  it('stamps a health verdict with the runtime clock', async () => {
    const runtime = virtualRuntime({ seed: 1 });
    const parsed = parseHealthCheck({ 'mlb.io/health-check': 'tcp://127.0.0.1:8080' });
    if (!parsed.ok || !parsed.spec) throw new Error('the check does not parse');
    const monitor = new HealthMonitor({ runtime, probe: async () => ({ ok: false, detail: 'connect ECONNREFUSED' }) });
    monitor.update([{ key: 'demo/web', spec: parsed.spec }]);
    await runtime.advance(parsed.spec.intervalMs * parsed.spec.fall);
    expect(monitor.results().get('demo/web')).toEqual({ state: 'failing', since: expect.any(Number), detail: 'connect ECONNREFUSED' });
    await monitor.close();
  });
});
