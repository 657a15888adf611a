/**
 * The API server's error shape: every failure is a `Status` object (meta.k8s.io/v1) with a reason the clients
 * switch on (client-go `apierrors.IsConflict`, kubectl's messages, client-node's `statusCode`). The reasons and
 * message shapes follow k8s.io/apimachinery/pkg/api/errors as of Kubernetes 1.32.
 */

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'UnsupportedMediaType'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
}

/** A request the fake refuses; thrown by the pure parts, turned into a Status response by the server shell. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: StatusReason;
  details?: StatusDetails;
  code: number;
}

export function statusBody(error: ApiError): StatusBody {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: error.message,
    reason: error.reason,
    ...(error.details ? { details: error.details } : {}),
    code: error.code,
  };
}

/** `services "a"` or `servicel2statuses.metallb.io "l2-x"`: how the apiserver names a resource in messages. */
export function qualifiedResource(group: string, resource: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

export function notFound(group: string, resource: string, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(group, resource)} "${name}" not found`, { name, group, kind: resource });
}

export function alreadyExists(group: string, resource: string, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualifiedResource(group, resource)} "${name}" already exists`, {
    name,
    group,
    kind: resource,
  });
}

export function conflict(group: string, resource: string, name: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(group, resource)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, group, kind: resource },
  );
}

export function invalid(kind: string, group: string, name: string, causes: string[]): ApiError {
  return new ApiError(422, 'Invalid', `${kind}${group === '' ? '' : `.${group}`} "${name}" is invalid: ${causes.join(', ')}`, {
    name,
    group,
    kind,
  });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function expired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}
