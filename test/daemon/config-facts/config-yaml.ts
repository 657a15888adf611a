// A small configuration in YAML, parsed by the real parser, so the facts are those of a file a user writes.
import { parseConfig, type Snapshot } from '../../../src/model';

const POOL = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: lan, namespace: metallb-system }
spec: { addresses: [192.0.2.10-192.0.2.19] }
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: { name: lan, namespace: metallb-system }
`;

function serviceDoc(name: string): string {
  return `---
apiVersion: v1
kind: Service
metadata: { name: ${name}, namespace: demo }
spec: { type: LoadBalancer, ports: [{ port: 80 }] }
`;
}

export interface ConfigTextOptions {
  /** false: neither the pool nor its advertisement. */
  readonly pool?: boolean;
  readonly comment?: string;
  /** Labels the advertisement selects nodes by (matchLabels); every node when absent. */
  readonly nodeLabels?: Readonly<Record<string, string>>;
}

/** The pool, its advertisement and a LoadBalancer service per name; `pool: false` leaves both out. */
export function configText(services: readonly string[], options: ConfigTextOptions = {}): string {
  const labels = options.nodeLabels && Object.entries(options.nodeLabels).map(([k, v]) => `${k}: ${v}`);
  const selector = labels ? `spec: { nodeSelectors: [{ matchLabels: { ${labels.join(', ')} } }] }\n` : '';
  const pool = options.pool === false ? '' : POOL + selector;
  return `${options.comment ? `# ${options.comment}\n` : ''}${pool}${services.map(serviceDoc).join('')}`;
}

export function configSnapshot(services: readonly string[], options: ConfigTextOptions = {}): Snapshot {
  const result = parseConfig(configText(services, options), 'mlb.yaml');
  if (!result.ok) throw new Error(`test configuration does not parse: ${JSON.stringify(result.diagnostics)}`);
  return result.snapshot;
}
