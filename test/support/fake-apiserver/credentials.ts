/**
 * Who is calling: bearer tokens the fake issues per subject (a service account `system:serviceaccount:NS:NAME` or a
 * user), written into kubeconfigs for kubectl and client-node. The token spells its subject, so a kubeconfig written
 * by one fake instance works with another (a restarted fake in the same test), and nothing has to be registered.
 *
 * kubectl 1.32 does not send a bearer token to a plain-http server (observed: no Authorization header at all), but
 * it does send impersonation headers, so the kubeconfig also names the subject in `as:` (Impersonate-User;
 * client-node sends it too). The fake accepts impersonation from a request without a token or from the admin, and
 * of oneself; a real apiserver would ask RBAC for the `impersonate` verb instead. Tests are cooperative callers:
 * the point is to know which identity a request was made as, not to resist a caller that lies about it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ApiError } from './api-error';
import { MASTERS_GROUP, userFor, type UserInfo } from './rbac';

/** The cluster-admin the default kubeconfig authenticates as (kubeadm's admin.conf user). */
export const ADMIN_SUBJECT = 'kubernetes-admin';
const TOKEN_PREFIX = 'mlb-fake-apiserver.';

export function tokenFor(subject: string): string {
  return TOKEN_PREFIX + Buffer.from(subject, 'utf8').toString('base64url');
}

const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

function subjectUser(subject: string): UserInfo {
  return subject === ADMIN_SUBJECT ? userFor(subject, [MASTERS_GROUP]) : userFor(subject);
}

/**
 * The user of a request from its Authorization and Impersonate-User headers: undefined for a token the fake did not
 * issue (401), a 403 ApiError for impersonation it does not accept, anonymous without either.
 */
export function authenticate(authorization: string | undefined, impersonate: string | undefined): UserInfo | undefined {
  let user = ANONYMOUS;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!match?.[1]?.startsWith(TOKEN_PREFIX)) return undefined;
    user = subjectUser(Buffer.from(match[1].slice(TOKEN_PREFIX.length), 'base64url').toString('utf8'));
  }
  if (impersonate === undefined || impersonate === user.name) return user;
  if (user === ANONYMOUS || user.groups.includes(MASTERS_GROUP)) return subjectUser(impersonate);
  throw new ApiError(
    403,
    'Forbidden',
    `users "${impersonate}" is forbidden: User "${user.name}" cannot impersonate resource "users" in API group "" at the cluster scope`,
  );
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
    users: [{ name: subject, user: { token: tokenFor(subject), as: subject } }],
    contexts: [{ name: 'fake', context: { cluster: 'fake', user: subject, namespace } }],
    'current-context': 'fake',
  };
  const path = join(dir, fileNameFor(subject));
  writeFileSync(path, stringify(config), { mode: 0o600 });
  return path;
}
