// Helpers for parser tests: parse inline YAML and fail loudly with the diagnostics when the outcome differs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Diagnostic, type ParseOptions, type Snapshot, parseConfig } from '../../src/model';

export function fixture(folder: 'valid' | 'invalid', name: string): string {
  return readFileSync(join(import.meta.dirname, '..', 'fixtures', folder, name), 'utf8');
}

export function parseOk(text: string, options?: ParseOptions): Snapshot {
  const result = parseConfig(text, 'test.yaml', options);
  if (!result.ok) throw new Error(`expected a valid configuration:\n${JSON.stringify(result.diagnostics, null, 1)}`);
  return result.snapshot;
}

export function parseErrors(text: string): Diagnostic[] {
  const result = parseConfig(text, 'test.yaml');
  if (result.ok) throw new Error('expected the configuration to be refused');
  return result.diagnostics.filter((d) => d.severity === 'error');
}

/** "line:column code" of each diagnostic, the compact form tests compare. */
export function where(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.position?.line ?? '?'}:${d.position?.column ?? '?'} ${d.code}`);
}

export const POOL = (name: string, ...addresses: string[]): string =>
  `apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: ${name}\nspec:\n  addresses:\n${addresses.map((a) => `    - ${a}\n`).join('')}`;

export const L2_ALL = 'apiVersion: metallb.io/v1beta1\nkind: L2Advertisement\nmetadata:\n  name: all\n';

export function peerYaml(spec: Record<string, string | number | boolean>, apiVersion = 'metallb.io/v1beta2'): string {
  const lines = Object.entries(spec).map(([k, v]) => `  ${k}: ${typeof v === 'string' ? JSON.stringify(v) : String(v)}\n`);
  return `apiVersion: ${apiVersion}\nkind: BGPPeer\nmetadata:\n  name: r\nspec:\n${lines.join('')}`;
}
