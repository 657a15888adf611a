// Building blocks of the metallb.io CRD schemas (OpenAPI v3, structural: every node has a type). The field names,
// types, formats, bounds and defaults follow MetalLB's API (api/v1beta1 and api/v1beta2 of metallb/metallb, v0.16),
// so an object MetalLB accepts is accepted here and the same stored object reads the same under either CRD. The
// descriptions are mlb's own words.

/** A string field. */
export function string(description, extra = {}) {
  return { description, type: 'string', ...extra };
}

/** A boolean field; `defaultValue` when MetalLB's API defaults it (the API server then stores it). */
export function boolean(description, defaultValue) {
  return defaultValue === undefined ? { description, type: 'boolean' } : { default: defaultValue, description, type: 'boolean' };
}

/** An integer field with MetalLB's format and bounds (each bound only where MetalLB has one). */
export function integer(description, { format, minimum, maximum, defaultValue } = {}) {
  return {
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
    description,
    ...(format === undefined ? {} : { format }),
    ...(maximum === undefined ? {} : { maximum }),
    ...(minimum === undefined ? {} : { minimum }),
    type: 'integer',
  };
}

/** An AS number: 32 bits (RFC 6793), carried as int64 as MetalLB's uint32 fields are. */
export function asn(description, minimum = 0) {
  return integer(description, { format: 'int64', minimum, maximum: 4294967295 });
}

/** A list of strings. */
export function stringList(description, extra = {}) {
  return { description, items: { type: 'string' }, type: 'array', ...extra };
}

/** An object with named fields; `required` only when MetalLB requires them. */
export function object(description, properties, required, extra = {}) {
  return { description, properties, ...(required ? { required } : {}), type: 'object', ...extra };
}

/** A spec or status that carries no fields (MetalLB keeps the keys for future use; anything inside is pruned). */
export function emptyObject(description) {
  return { description, type: 'object' };
}

/**
 * A Kubernetes label selector (meta/v1 LabelSelector): matchLabels ANDed with matchExpressions; an empty selector
 * matches everything. Atomic, as the upstream type is marked: a merge patch replaces a selector whole.
 */
export function labelSelector(description) {
  return {
    description,
    properties: {
      matchExpressions: {
        description: 'Requirements on label keys, all of which must hold.',
        items: {
          description: 'One requirement: a label key, an operator and the values the operator compares with.',
          properties: {
            key: string('The label key the requirement is about.'),
            operator: string('In, NotIn, Exists or DoesNotExist.'),
            values: stringList('The values for In and NotIn; empty for Exists and DoesNotExist.', {
              'x-kubernetes-list-type': 'atomic',
            }),
          },
          required: ['key', 'operator'],
          type: 'object',
        },
        type: 'array',
        'x-kubernetes-list-type': 'atomic',
      },
      matchLabels: {
        additionalProperties: { type: 'string' },
        description: 'Labels that must be present with exactly these values.',
        type: 'object',
      },
    },
    type: 'object',
    'x-kubernetes-map-type': 'atomic',
  };
}

/** A list of label selectors; an object matches the list when it matches any one of them. */
export function selectorList(description, itemDescription) {
  return { description, items: labelSelector(itemDescription), type: 'array' };
}

/**
 * A field that may be set once and never changed (CEL, apiextensions.k8s.io/v1 x-kubernetes-validations, Kubernetes
 * 1.25+), as MetalLB marks the identity fields of its status objects.
 */
export function immutable(schema, message) {
  return { ...schema, 'x-kubernetes-validations': [{ message, rule: 'self == oldSelf' }] };
}

/** The apiVersion/kind/metadata every object has, around the kind's own spec and status. */
export function root(description, { spec, status, required }) {
  return {
    description,
    properties: {
      apiVersion: string('The versioned schema of this object (metallb.io/v1beta1 or v1beta2).'),
      kind: string('The kind of this object.'),
      metadata: { type: 'object' },
      ...(spec ? { spec } : {}),
      ...(status ? { status } : {}),
    },
    ...(required ? { required } : {}),
    type: 'object',
  };
}

/** A printer column for `kubectl get` (MetalLB's name, type, path and priority). */
export function column(name, jsonPath, type = 'string', priority) {
  return { jsonPath, name, ...(priority === undefined ? {} : { priority }), type };
}

/** One CustomResourceDefinition of the metallb.io group, namespaced, each version with a status subresource. */
export function crd({ kind, plural, versions }) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.metallb.io` },
    spec: {
      group: 'metallb.io',
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      scope: 'Namespaced',
      versions: versions.map((v) => ({
        ...(v.columns ? { additionalPrinterColumns: v.columns } : {}),
        ...(v.deprecationWarning ? { deprecated: true, deprecationWarning: v.deprecationWarning } : {}),
        name: v.name,
        schema: { openAPIV3Schema: v.schema },
        served: true,
        storage: v.storage ?? true,
        subresources: { status: {} },
      })),
    },
  };
}
