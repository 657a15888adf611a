/**
 * The Secrets of the MetalLB namespace, as the API returns them, to what the configuration parser looks BGPPeer
 * passwordSecret references up in (model/parse/peer-secrets.ts): name, type, and data decoded from base64. The
 * API serves data base64-encoded only (stringData is write-only, merged into data on write). Pure.
 */
import { Buffer } from 'node:buffer';
import type { PeerSecret, PeerSecrets } from '../../model';
import type { ApiObject } from './api-object';

interface ApiSecret extends ApiObject {
  readonly type?: unknown;
  readonly data?: unknown;
}

/** An absent type is Opaque, the API server's default. */
const DEFAULT_SECRET_TYPE = 'Opaque';

/** The Secrets named `wanted` (BGPPeer passwordSecret names), by name. */
export function peerSecretsOf(secrets: readonly ApiObject[], wanted: ReadonlySet<string>): PeerSecrets {
  const byName = new Map<string, PeerSecret>();
  for (const secret of secrets as readonly ApiSecret[]) {
    const name = secret.metadata?.name;
    if (!name || !wanted.has(name)) continue;
    byName.set(name, {
      namespace: secret.metadata?.namespace ?? '',
      name,
      type: typeof secret.type === 'string' && secret.type !== '' ? secret.type : DEFAULT_SECRET_TYPE,
      data: decodedData(secret.data),
    });
  }
  return byName;
}

function decodedData(data: unknown): ReadonlyMap<string, string> {
  if (typeof data !== 'object' || data === null) return new Map();
  const decoded = new Map<string, string>();
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === 'string') decoded.set(key, Buffer.from(value, 'base64').toString('utf8'));
  }
  return decoded;
}
