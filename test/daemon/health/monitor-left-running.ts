// Child process for health-monitor.test.ts: starts a monitor, never closes it, and must still exit by itself
// once its own work is done (the monitor's timers are unref'd).
import { HealthMonitor } from '../../../src/daemon/health/health-monitor';
import { parseHealthCheck } from '../../../src/daemon/health/health-check-spec';

const parsed = parseHealthCheck({ 'mlb.io/health-check': 'exec:/bin/true', 'mlb.io/health-check-interval': '100ms' });
if (!parsed.ok || !parsed.spec) throw new Error('bad spec');
const monitor = new HealthMonitor({ probe: async () => ({ ok: true, detail: 'ok' }) });
monitor.on('change', () => process.stdout.write('probed\n'));
monitor.update([{ key: 'a/x', spec: parsed.spec }]);
// Keep the process busy for a moment so several probes run, then let it end.
setTimeout(() => {}, 400);
