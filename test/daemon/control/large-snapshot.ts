// A daemon's control view of many services on one node, built by the real parser, election and control view.
import { decideCluster } from '../../../src/daemon/cluster-decision';
import { controlView, statusView, type ControlViewInputs } from '../../../src/daemon/control-view';
import type { ControlStatus, SnapshotPage } from '../../../src/daemon/control';
import { encodeNodeMeta } from '../../../src/gossip/node-meta';
import { parseIP, type IP } from '../../../src/ip';
import { parseConfig } from '../../../src/model';

const NODE = 'node-1';

function configText(services: number): string {
  let text =
    'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: lan\n  namespace: metallb-system\nspec:\n  addresses:\n    - 10.0.0.0/16\n' +
    '---\napiVersion: metallb.io/v1beta1\nkind: L2Advertisement\nmetadata:\n  name: lan\n  namespace: metallb-system\n';
  for (let i = 0; i < services; i++) {
    text += `---\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc-${i}\n  namespace: demo\nspec:\n  type: LoadBalancer\n  ports:\n    - port: 80\n`;
  }
  return text;
}

/** The IP svc-i holds: 10.0.x.y, so every service has its own. */
export function serviceIP(i: number): string {
  return `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

/** controlView over `services` services, each elected on the one live node; `page` as GET /v1/snapshot?offset&limit. */
export function largeControlView(services: number): (page?: SnapshotPage) => ReturnType<typeof controlView> {
  return largeViews(services).snapshot;
}

/** The snapshot (as largeControlView) and GET /v1/status of the same daemon state. */
export function largeViews(services: number): {
  snapshot: (page?: SnapshotPage) => ReturnType<typeof controlView>;
  status: () => ControlStatus;
} {
  const parsed = parseConfig(configText(services), 'mlb.yaml');
  if (!parsed.ok) throw new Error(`large configuration does not parse: ${JSON.stringify(parsed.diagnostics.slice(0, 3))}`);
  const addresses = new Map(
    parsed.snapshot.services.map((s) => [
      `demo/${s.meta.name}`,
      { ips: [parseIP(serviceIP(Number(s.meta.name.slice(4)))) as IP], pool: 'lan' },
    ]),
  );
  const decision = decideCluster({
    self: NODE,
    snapshot: parsed.snapshot,
    live: [{ name: NODE, meta: encodeNodeMeta({ labels: {}, conditions: [], draining: false, warmingUp: false }) }],
    addresses,
    passing: new Map(),
  });
  const inputs: ControlViewInputs = {
    now: Date.parse('2026-01-01T00:00:00Z'),
    node: {
      name: NODE,
      version: '0.1.0',
      startedAt: Date.parse('2026-01-01T00:00:00Z'),
      draining: false,
      warmingUp: false,
      warmUpUntil: undefined,
      leaving: false,
    },
    gossip: { bind: '127.0.0.1:7946', profile: 'lan', encrypted: false, healthScore: 0 },
    configFile: 'mlb.yaml',
    config: undefined,
    members: [],
    decision,
    allocation: { allocator: NODE, version: 1, results: new Map() },
    health: new Map(),
    owners: new Map(),
    announced: [],
    bound: [],
    conflicts: [],
    bgp: [],
  };
  return { snapshot: (page) => controlView(page ? { ...inputs, page } : inputs), status: () => statusView(inputs) };
}
