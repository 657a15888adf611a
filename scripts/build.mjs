// Bundles the CLI and daemon into one file, dist/mlb.mjs, with the version and git commit baked in.
// `mlb version` must name the commit it was built from, so a build without one fails instead of saying "dev".
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

function gitCommit() {
  if (process.env.MLB_COMMIT) return process.env.MLB_COMMIT;
  try {
    const sha = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return dirty ? `${sha}-dirty` : sha;
  } catch {
    console.error('build: cannot read the git commit (no git checkout?); set MLB_COMMIT to the commit being built');
    process.exit(1);
  }
}

const outfile = 'dist/mlb.mjs';
await build({
  entryPoints: ['src/cli/main.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: 'linked',
  legalComments: 'none',
  banner: {
    // A shebang so dist/mlb.mjs runs as `mlb`; createRequire lets bundled CommonJS packages load Node built-ins.
    js: "#!/usr/bin/env node\nimport { createRequire as __mlbCreateRequire } from 'node:module';\nconst require = __mlbCreateRequire(import.meta.url);",
  },
  define: {
    __MLB_VERSION__: JSON.stringify(pkg.version),
    __MLB_COMMIT__: JSON.stringify(gitCommit()),
  },
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
// The AF_PACKET addon (src/native) goes beside the bundle, where src/native/native-addon.ts looks first. Without it
// (no g++ at install) the bundle still runs; only the commands that need raw sockets fail, saying why.
const addon = 'build/Release/mlb_native.node';
if (existsSync(addon)) copyFileSync(addon, 'dist/mlb_native.node');
else console.warn(`build: ${addon} is missing (npm rebuild builds it); dist/mlb.mjs will run without raw sockets`);
console.log(`built ${outfile} (mlb ${pkg.version})`);
