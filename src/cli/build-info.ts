// Replaced at bundle time by scripts/build.mjs. Running from source (tests through vitest) reads them from the
// environment instead, so even then nothing claims a version it is not.
declare const __MLB_VERSION__: string | undefined;
declare const __MLB_COMMIT__: string | undefined;

export interface BuildInfo {
  readonly version: string;
  readonly commit: string;
}

export function buildInfo(): BuildInfo {
  const version = typeof __MLB_VERSION__ === 'string' ? __MLB_VERSION__ : (process.env.npm_package_version ?? 'unbuilt');
  const commit = typeof __MLB_COMMIT__ === 'string' ? __MLB_COMMIT__ : 'unbuilt (run from source)';
  return { version, commit };
}

/**
 * `mlb version`'s line. Also what main.ts prints for `mlb --version` without loading the command line
 * (prebuilt-answer.ts), so both come from here.
 */
export function versionLine(info: BuildInfo, node: string): string {
  return `mlb ${info.version} (commit ${info.commit}, node ${node})\n`;
}
