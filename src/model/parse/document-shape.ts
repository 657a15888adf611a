/**
 * A document's top level, as far as it can be seen without reading it: what read-documents.ts compares between
 * neighbours to tell an object cut in two by a stray "---", and names a broken document by. Pure.
 */
import { type Node as YamlNode, isMap, isScalar, isSeq } from 'yaml';
import type { SourcePosition } from '../types';
import { type SourceText, type YamlDocument, positionOfNode } from './yaml-documents';

export interface DocumentShape {
  /** Top-level keys of a mapping; undefined for a list, a scalar or an empty document. */
  readonly keys: readonly string[] | undefined;
  readonly list: boolean;
  readonly kind?: string;
  readonly name?: string;
  readonly position: SourcePosition | undefined;
}

function scalarString(node: unknown): string | undefined {
  return isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
}

export function shapeOf(source: SourceText, document: YamlDocument): DocumentShape {
  const root = document.root as YamlNode | undefined;
  const position = root === undefined ? undefined : positionOfNode(source, root);
  if (!isMap(root)) return { keys: undefined, list: isSeq(root), position };
  const keys = root.items.map((item) => (isScalar(item.key) ? String(item.key.value) : ''));
  const metadata = root.get('metadata', true);
  const kind = scalarString(root.get('kind', true));
  const name = isMap(metadata) ? scalarString(metadata.get('name', true)) : undefined;
  return { keys, list: false, position, ...(kind !== undefined && { kind }), ...(name !== undefined && { name }) };
}
