/**
 * The repository files `mlb install` writes to a host: systemd/mlb.service and examples/mlb.env. The bundles
 * carry them as text (scripts/bundle-options.mjs defines both), because dist/mlb is one file with no repository
 * beside it; run from source, they are read from the repository.
 */
import { readFileSync } from 'node:fs';

declare const __MLB_SYSTEMD_UNIT__: string | undefined;
declare const __MLB_ENV_EXAMPLE__: string | undefined;

function fromRepository(path: string): string {
  return readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
}

export function systemdUnitText(): string {
  return typeof __MLB_SYSTEMD_UNIT__ === 'string' ? __MLB_SYSTEMD_UNIT__ : fromRepository('systemd/mlb.service');
}

export function envExampleText(): string {
  return typeof __MLB_ENV_EXAMPLE__ === 'string' ? __MLB_ENV_EXAMPLE__ : fromRepository('examples/mlb.env');
}
