/**
 * The `yaml` package's node classes, made without their constructors, for the subset reader (block-yaml-subset.ts,
 * flow-yaml-subset.ts). Each constructor marks its node's type with Object.defineProperty (the symbol isScalar,
 * isMap, isSeq and isPair read), one slow property definition per node: a fifth of reading 10,000 Services. Here
 * the mark is defined once, on a prototype between the class's prototype and the node, so the same checks,
 * `instanceof` and every method see the same node; the fields the constructors assign are assigned the same.
 * Pure.
 */
import { Pair, Scalar, YAMLMap, YAMLSeq, type Node as YamlNode } from 'yaml';

/**
 * A prototype for nodes like `sample`: the class's prototype plus the sample's own symbol-keyed properties (the
 * type mark, whatever the package names it). Nothing else of the sample is copied: the fields are per node.
 */
function markedPrototype<T extends object>(sample: T): T {
  const prototype = Object.create(Object.getPrototypeOf(sample) as object) as T;
  for (const symbol of Object.getOwnPropertySymbols(sample)) {
    const descriptor = Object.getOwnPropertyDescriptor(sample, symbol);
    if (descriptor) Object.defineProperty(prototype, symbol, descriptor);
  }
  return prototype;
}

const SCALAR = markedPrototype(new Scalar(null));
const MAP = markedPrototype(new YAMLMap());
const SEQ = markedPrototype(new YAMLSeq());
const PAIR = markedPrototype(new Pair(null));

export function newScalar(value: unknown): Scalar {
  const scalar = Object.create(SCALAR) as Scalar;
  scalar.value = value;
  return scalar;
}

export function newMap(): YAMLMap {
  const map = Object.create(MAP) as YAMLMap;
  map.items = [];
  return map;
}

export function newSeq(): YAMLSeq {
  const seq = Object.create(SEQ) as YAMLSeq;
  seq.items = [];
  return seq;
}

export function newPair(key: YamlNode, value: YamlNode): Pair {
  const pair = Object.create(PAIR) as Pair;
  pair.key = key;
  pair.value = value;
  return pair;
}
