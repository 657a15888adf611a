/**
 * The memberlist Secret the speakers mount (MetalLB v0.16.1 internal/k8s/k8s.go CreateMlSecret): created once by
 * the controller when absent, data `secretkey` = 16 random bytes in unpadded standard base64 (22 characters),
 * owned by the controller Deployment so it goes away with the install. Never rewritten: rotating it would split
 * running speakers' gossip.
 */
import type { ApiObject, ApiOwnerReference } from './api-objects';

const MEMBERLIST_SECRET_KEY = 'secretkey';
/** MetalLB's key size: 128 bits; the speakers derive their AES key from it. */
export const MEMBERLIST_KEY_BYTES = 16;

export type SecretDecision =
  { readonly kind: 'exists'; readonly message: string } | { readonly kind: 'create'; readonly secret: ApiObject; readonly message: string };

/** base64.RawStdEncoding: standard alphabet, no "=" padding. */
function rawBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64').replace(/=+$/, '');
}

/**
 * `existing`: the Secret read by name (undefined: not found). `deployment`: the controller Deployment read by
 * name, for the ownerReference (undefined: not found; the Secret is then created without an owner).
 */
export function memberlistSecretDecision(
  namespace: string,
  name: string,
  existing: ApiObject | undefined,
  deployment: ApiObject | undefined,
  randomKey: Uint8Array,
): SecretDecision {
  if (existing !== undefined) return { kind: 'exists', message: `secret ${namespace}/${name} exists: left as it is` };
  if (randomKey.length !== MEMBERLIST_KEY_BYTES) throw new Error(`memberlist key must be ${MEMBERLIST_KEY_BYTES} bytes`);
  const owner: ApiOwnerReference | undefined =
    deployment?.metadata.uid === undefined
      ? undefined
      : { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name ?? '', uid: deployment.metadata.uid };
  // The API takes Secret data base64-encoded: the stored value is the 22 characters, encoded once more.
  const value = Buffer.from(rawBase64(randomKey), 'utf8').toString('base64');
  return {
    kind: 'create',
    secret: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace, ...(owner && { ownerReferences: [owner] }) },
      data: { [MEMBERLIST_SECRET_KEY]: value },
    },
    message: `creating secret ${namespace}/${name}${owner ? ` owned by Deployment ${owner.name}` : ' (no controller Deployment found: no owner)'}`,
  };
}
