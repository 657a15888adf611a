/**
 * Who is calling: bearer tokens the fake issues per subject (a service account `system:serviceaccount:NS:NAME` or a
 * user), written into kubeconfigs for kubectl and client-node. The token spells its subject, so a kubeconfig written
 * by one fake instance works with another (a restarted fake in the same test), and nothing has to be registered.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { MASTERS_GROUP, userFor, type UserInfo } from './rbac';

/** The cluster-admin the default kubeconfig authenticates as (kubeadm's admin.conf user). */
export const ADMIN_SUBJECT = 'kubernetes-admin';
const TOKEN_PREFIX = 'mlb-fake-apiserver.';

export function tokenFor(subject: string): string {
  return TOKEN_PREFIX + Buffer.from(subject, 'utf8').toString('base64url');
}

/** The user of an Authorization header: undefined for a token the fake did not issue (401); anonymous without one. */
export function authenticate(authorization: string | undefined): UserInfo | undefined {
  if (authorization === undefined) return { name: 'system:anonymous', groups: ['system:unauthenticated'] };
  const match = /^Bearer\s+(\S+)$/i.exec(authorization);
  if (!match?.[1]?.startsWith(TOKEN_PREFIX)) return undefined;
  const subject = Buffer.from(match[1].slice(TOKEN_PREFIX.length), 'base64url').toString('utf8');
  return subject === ADMIN_SUBJECT ? userFor(subject, [MASTERS_GROUP]) : userFor(subject);
}

/** A file name for a subject's kubeconfig (`system:serviceaccount:metallb-system:controller` has colons). */
function fileNameFor(subject: string): string {
  return `kubeconfig-${subject.replace(/[^A-Za-z0-9_.-]+/g, '_')}.yaml`;
}

/**
 * Writes a kubeconfig for `subject` in `dir` and returns its path. `insecure-skip-tls-verify` is set because
 * client-node 1.x refuses a plain-http server otherwise (config.js); kubectl ignores it for http.
 */
export function writeKubeconfig(dir: string, server: string, subject: string = ADMIN_SUBJECT, namespace = 'default'): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'fake', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: subject, user: { token: tokenFor(subject) } }],
    contexts: [{ name: 'fake', context: { cluster: 'fake', user: subject, namespace } }],
    'current-context': 'fake',
  };
  const path = join(dir, fileNameFor(subject));
  writeFileSync(path, stringify(config), { mode: 0o600 });
  return path;
}
