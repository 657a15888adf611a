/**
 * The shapes of the Kubernetes API's JSON objects, as far as mlb reads them outside the model's parser (which
 * reads whole objects itself): names and labels to key and associate them, EndpointSlice endpoints, resource
 * versions. Everything optional: the API's JSON, not a promise.
 */

export interface ApiObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly resourceVersion?: string;
}

export interface ApiObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ApiObjectMeta;
  readonly [field: string]: unknown;
}

/** discovery.k8s.io/v1 EndpointConditions: each field may be absent or null ("unknown"). */
export interface ApiEndpointConditions {
  readonly ready?: boolean | null;
  readonly serving?: boolean | null;
  readonly terminating?: boolean | null;
}

export interface ApiEndpoint {
  readonly addresses?: readonly string[];
  readonly conditions?: ApiEndpointConditions | null;
  readonly nodeName?: string | null;
}

export interface ApiEndpointSlice extends ApiObject {
  readonly addressType?: string;
  readonly endpoints?: readonly ApiEndpoint[] | null;
}

/** "namespace/name" (or "name" for cluster-scoped objects): the key objects are stored and compared by. */
export function objectKey(object: ApiObject): string {
  const namespace = object.metadata?.namespace;
  const name = object.metadata?.name ?? '';
  return namespace ? `${namespace}/${name}` : name;
}
