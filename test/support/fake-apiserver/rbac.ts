/**
 * RBAC as the apiserver's authorizer evaluates it (k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac): a request
 * (verb, apiGroup, resource[/subresource], namespace, name) is allowed when a rule of a Role bound in its namespace
 * or of a ClusterRole bound by a RoleBinding there or by a ClusterRoleBinding allows it. resourceNames never
 * authorize create or deletecollection; list and watch reach them only through a `metadata.name=` field selector
 * (the apiserver takes that as the request's name). Non-resource URLs (discovery, /version, /openapi) are open to
 * every authenticated subject, as the default system:discovery and system:public-info-viewer roles make them.
 * `system:masters` bypasses RBAC, as on a real cluster.
 */
import { parseAllDocuments } from 'yaml';
import { ApiError, qualifiedResource } from './api-error';
import { isPlainObject } from './kube-object';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames: string[];
}

interface RoleRef {
  kind: 'Role' | 'ClusterRole';
  name: string;
}

interface RbacSubject {
  kind: 'ServiceAccount' | 'User' | 'Group';
  name: string;
  namespace?: string;
}

interface Binding {
  /** Absent for ClusterRoleBindings. */
  namespace?: string;
  roleRef: RoleRef;
  subjects: RbacSubject[];
}

export interface RbacPolicy {
  /** `namespace/name` of Roles, `name` of ClusterRoles. */
  roles: Map<string, PolicyRule[]>;
  clusterRoles: Map<string, PolicyRule[]>;
  bindings: Binding[];
}

export interface UserInfo {
  name: string;
  groups: string[];
}

export interface RequestAttributes {
  verb: string;
  apiGroup: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export const MASTERS_GROUP = 'system:masters';
const AUTHENTICATED_GROUP = 'system:authenticated';
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** The user a subject name stands for, with the groups the apiserver's authenticators add. */
export function userFor(subject: string, extraGroups: string[] = []): UserInfo {
  const groups = [...extraGroups, AUTHENTICATED_GROUP];
  if (subject.startsWith(SERVICE_ACCOUNT_PREFIX)) {
    const namespace = subject.slice(SERVICE_ACCOUNT_PREFIX.length).split(':')[0] ?? '';
    groups.push('system:serviceaccounts', `system:serviceaccounts:${namespace}`);
  }
  return { name: subject, groups };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function rulesOf(document: Record<string, unknown>): PolicyRule[] {
  const rules = Array.isArray(document['rules']) ? document['rules'] : [];
  return rules.filter(isPlainObject).map((rule) => ({
    apiGroups: strings(rule['apiGroups']),
    resources: strings(rule['resources']),
    verbs: strings(rule['verbs']),
    resourceNames: strings(rule['resourceNames']),
  }));
}

function subjectsOf(document: Record<string, unknown>, bindingNamespace: string | undefined): RbacSubject[] {
  const subjects = Array.isArray(document['subjects']) ? document['subjects'] : [];
  return subjects.filter(isPlainObject).map((subject) => {
    const kind = subject['kind'] === 'ServiceAccount' || subject['kind'] === 'Group' ? subject['kind'] : 'User';
    const namespace = typeof subject['namespace'] === 'string' ? subject['namespace'] : bindingNamespace;
    return { kind, name: String(subject['name'] ?? ''), ...(namespace !== undefined ? { namespace } : {}) };
  });
}

export function emptyPolicy(): RbacPolicy {
  return { roles: new Map(), clusterRoles: new Map(), bindings: [] };
}

/** Adds parsed RBAC objects (Role, ClusterRole, RoleBinding, ClusterRoleBinding; anything else is ignored). */
export function addRbacObjects(policy: RbacPolicy, documents: unknown[]): RbacPolicy {
  for (const document of documents) {
    if (!isPlainObject(document) || !isPlainObject(document['metadata'])) continue;
    if (typeof document['apiVersion'] !== 'string' || !document['apiVersion'].startsWith('rbac.authorization.k8s.io/')) continue;
    const metadata = document['metadata'];
    const name = String(metadata['name'] ?? '');
    const namespace = typeof metadata['namespace'] === 'string' ? metadata['namespace'] : undefined;
    const roleRef = isPlainObject(document['roleRef']) ? document['roleRef'] : {};
    const ref: RoleRef = { kind: roleRef['kind'] === 'Role' ? 'Role' : 'ClusterRole', name: String(roleRef['name'] ?? '') };
    switch (document['kind']) {
      case 'Role':
        policy.roles.set(`${namespace ?? 'default'}/${name}`, rulesOf(document));
        break;
      case 'ClusterRole':
        policy.clusterRoles.set(name, rulesOf(document));
        break;
      case 'RoleBinding':
        policy.bindings.push({ namespace: namespace ?? 'default', roleRef: ref, subjects: subjectsOf(document, namespace ?? 'default') });
        break;
      case 'ClusterRoleBinding':
        policy.bindings.push({ roleRef: ref, subjects: subjectsOf(document, undefined) });
        break;
    }
  }
  return policy;
}

/** The RBAC objects of a multi-document manifest (`kubectl kustomize deploy/` output, or any YAML stream). */
export function rbacFromManifestText(yamlText: string): RbacPolicy {
  const documents = parseAllDocuments(yamlText).flatMap((document) => {
    const value: unknown = document.toJS();
    // A `kind: List` (kubectl get -o yaml) carries its objects in items.
    return isPlainObject(value) && Array.isArray(value['items']) ? value['items'] : [value];
  });
  return addRbacObjects(emptyPolicy(), documents);
}

function subjectMatches(subject: RbacSubject, user: UserInfo): boolean {
  switch (subject.kind) {
    case 'ServiceAccount':
      return user.name === `${SERVICE_ACCOUNT_PREFIX}${subject.namespace ?? ''}:${subject.name}`;
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
  }
}

function ruleAllows(rule: PolicyRule, request: RequestAttributes): boolean {
  const resource = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
  const groupOk = rule.apiGroups.includes('*') || rule.apiGroups.includes(request.apiGroup);
  const verbOk = rule.verbs.includes('*') || rule.verbs.includes(request.verb);
  const resourceOk = rule.resources.some(
    (candidate) =>
      candidate === '*' || candidate === resource || (request.subresource !== undefined && candidate === `*/${request.subresource}`),
  );
  const nameOk =
    rule.resourceNames.length === 0 ||
    (request.name !== undefined && request.verb !== 'create' && rule.resourceNames.includes(request.name));
  return groupOk && verbOk && resourceOk && nameOk;
}

function rulesFor(policy: RbacPolicy, binding: Binding): PolicyRule[] {
  if (binding.roleRef.kind === 'ClusterRole') return policy.clusterRoles.get(binding.roleRef.name) ?? [];
  return policy.roles.get(`${binding.namespace ?? ''}/${binding.roleRef.name}`) ?? [];
}

export function isAllowed(policy: RbacPolicy, user: UserInfo, request: RequestAttributes): boolean {
  if (user.groups.includes(MASTERS_GROUP)) return true;
  return policy.bindings.some((binding) => {
    // A RoleBinding grants only inside its namespace; a ClusterRoleBinding everywhere.
    if (binding.namespace !== undefined && binding.namespace !== request.namespace) return false;
    if (!binding.subjects.some((subject) => subjectMatches(subject, user))) return false;
    return rulesFor(policy, binding).some((rule) => ruleAllows(rule, request));
  });
}

/** The apiserver's 403 (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters forbidden). */
export function forbidden(user: UserInfo, request: RequestAttributes): ApiError {
  const resource = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
  const what = request.name
    ? `${qualifiedResource(request.apiGroup, request.resource)} "${request.name}"`
    : qualifiedResource(request.apiGroup, request.resource);
  const scope = request.namespace ? `in the namespace "${request.namespace}"` : 'at the cluster scope';
  return new ApiError(
    403,
    'Forbidden',
    `${what} is forbidden: User "${user.name}" cannot ${request.verb} resource "${resource}" in API group "${request.apiGroup}" ${scope}`,
    { ...(request.name ? { name: request.name } : {}), group: request.apiGroup, kind: request.resource },
  );
}
