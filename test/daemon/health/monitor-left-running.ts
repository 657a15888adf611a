// Child process for health-monitor.test.ts: starts a monitor, never closes it, and must still exit by itself
// once its own work is done (the monitor's timers are unref'd).
import { HealthMonitor } from '../../../src/daemon/health/health-monitor';
import { parseHealthCheck } from '../../../src/daemon/health/health-check-spec';

const parsed = parseHealthCheck({ 'mlb.io/health-check': 'exec:/bin/true', 'mlb.io/health-check-interval': '100ms' });
if (!parsed.ok || !parsed.spec) throw new Error('bad spec');
const monitor = new HealthMonitor({ probe: async () => ({ ok: true, detail: 'ok' }) });
// Keep the process busy until the first probe has decided (so the loop is armed for the next one), then let go:
// from there only the monitor's own timers are left, and they must not hold the process.
const busy = setTimeout(() => {}, 10_000);
monitor.on('change', () => {
  process.stdout.write('probed\n');
  clearTimeout(busy);
});
monitor.update([{ key: 'a/x', spec: parsed.spec }]);
