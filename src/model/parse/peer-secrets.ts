/**
 * BGPPeer spec.passwordSecret: the TCP MD5 key (RFC 2385) kept in a Secret instead of the peer. As MetalLB's
 * internal/config/config.go passwordFromSecretForPeer (v0.14+): the Secret is looked up by name among the
 * Secrets of the MetalLB namespace (the reference's namespace is not read), must be of type
 * kubernetes.io/basic-auth and hold the key `password`; each failure keeps the configuration from loading, in
 * MetalLB's words. A file holds no Secret, so there the reference alone is the error. Runs after reading, before
 * the cross-checks; pure.
 */
import type { BGPPeer } from '../types';
import { DiagnosticCode, type DiagnosticCodeName } from './diagnostic-codes';
import { type Parsed, type ParsedObjects, reportAt } from './parsed-objects';

/** The only Secret type MetalLB takes a peer password from (corev1.SecretTypeBasicAuth). */
const PEER_SECRET_TYPE = 'kubernetes.io/basic-auth';
/** The key of the Secret's data that holds the password. */
const PEER_SECRET_PASSWORD_KEY = 'password';

/** A Secret of the MetalLB namespace as the peer check reads it: its type and its decoded data. */
export interface PeerSecret {
  readonly namespace: string;
  readonly name: string;
  readonly type: string;
  /** Key -> value, decoded from the API's base64. */
  readonly data: ReadonlyMap<string, string>;
}

/** Name -> Secret, the Secrets of the MetalLB namespace (Kubernetes mode). */
export type PeerSecrets = ReadonlyMap<string, PeerSecret>;

/**
 * Fills each peer's password from the Secret its passwordSecret names, or reports why it cannot. `secrets`
 * undefined: the objects came from a file; 'unreadable': from a cluster whose Secrets the reader may not list. A peer with both password and passwordSecret has its error already.
 */
export function resolvePeerSecrets(parsed: ParsedObjects, secrets: PeerSecrets | 'unreadable' | undefined): void {
  // An operator's tool whose user may not read Secrets: the references cannot be checked, which is not an error.
  if (secrets === 'unreadable') return;
  parsed.bgpPeers.forEach((entry, index) => {
    const peer = entry.object;
    if (!peer.passwordSecret || peer.password !== undefined) return;
    const password = passwordOf(entry, secrets);
    if (password) parsed.bgpPeers[index] = { ...entry, object: { ...peer, password } satisfies BGPPeer };
  });
}

/** The password, '' for an empty one (no MD5, as MetalLB), undefined after reporting an error. */
function passwordOf(entry: Parsed<BGPPeer>, secrets: PeerSecrets | undefined): string | undefined {
  const { meta, passwordSecret } = entry.object;
  const peerRef = `"${meta.namespace}"/"${meta.name}"`;
  const error = (code: DiagnosticCodeName, message: string): undefined => {
    reportAt(entry, 'error', code, message, 'spec.passwordSecret');
    return undefined;
  };
  if (secrets === undefined) {
    return error(
      DiagnosticCode.secretNotFound,
      `secret ref not found for peer config ${peerRef}: a configuration file cannot hold the Secret, put the key in password`,
    );
  }
  const secret = passwordSecret && secrets.get(passwordSecret.name);
  if (!secret) return error(DiagnosticCode.secretNotFound, `secret ref not found for peer config ${peerRef}`);
  const secretRef = `"${secret.namespace}"/"${secret.name}"`;
  if (secret.type !== PEER_SECRET_TYPE) {
    return error(DiagnosticCode.secretTypeMismatch, `secret type mismatch on ${secretRef}, type "${PEER_SECRET_TYPE}" is expected`);
  }
  const password = secret.data.get(PEER_SECRET_PASSWORD_KEY);
  if (password === undefined) return error(DiagnosticCode.secretPasswordMissing, `password not specified in the secret ${secretRef}`);
  return password;
}
