// Bundles the CLI and daemon into one file, dist/mlb.mjs, with the version and git commit baked in.
// `mlb version` must name the commit it was built from, so a build without one fails instead of saying "dev".
// The interactive `mlb status` (Ink, React, yoga's WebAssembly: twice the size of everything else) is a second
// file beside it, dist/mlb-tui.mjs, loaded only when that view opens: in one file, every `mlb` command would
// spend some 30 ms parsing code it never runs, and `mlb` must start in well under 200 ms. For the same reason the
// Kubernetes client library (5 MB, more than all of mlb) is a third file, dist/mlb-k8s.mjs, which only the commands
// that talk to a cluster load.
import { build } from 'esbuild';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  asciiStringWidth,
  common,
  KUBERNETES_CLIENT_ENTRY,
  KUBERNETES_CLIENT_FILE,
  kubernetesClientBesideBundle,
  pkg,
  TUI_ENTRY,
  TUI_FILE,
  tuiBesideBundle,
} from './bundle-options.mjs';

/**
 * Ink's developer mode (DEV=true in the environment) imports react-devtools-core and reads Ink's package.json beside
 * the module; neither exists beside dist/mlb.mjs, so a user with DEV=true set for something else would get a crash.
 * The bundle's Ink never enters that mode, and the devtools module is a stub that is never loaded.
 */
const inkWithoutDevMode = {
  name: 'ink-without-dev-mode',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]ink[\\/]build[\\/]utils\.js$/ }, () => ({
      contents: 'export const isDev = () => false;',
      loader: 'js',
    }));
    b.onResolve({ filter: /^react-devtools-core$/ }, (args) => ({ path: args.path, namespace: 'mlb-stub' }));
    b.onLoad({ filter: /.*/, namespace: 'mlb-stub' }, () => ({
      contents: 'throw new Error("react-devtools-core is not part of the mlb bundle");',
      loader: 'js',
    }));
  },
};

// createRequire lets bundled CommonJS packages (yargs, pino; react in the TUI) load Node built-ins.
const requireBanner =
  "import { createRequire as __mlbCreateRequire } from 'node:module';\nconst require = __mlbCreateRequire(import.meta.url);";
// The one-file build imports the TUI and the Kubernetes client from a data: URL (src/packaging/embedded-module.ts), which createRequire
// refuses; built-ins resolve the same from any file, so it is given the executable's path there.
const tuiRequireBanner =
  "import { createRequire as __mlbCreateRequire } from 'node:module';\nconst require = __mlbCreateRequire(import.meta.url.startsWith('file:') ? import.meta.url : process.execPath);";

const outfile = 'dist/mlb.mjs';
/** The files the bundle is split into beside dist/mlb.mjs, one per command's import() and what they share. */
const PART_PREFIX = 'mlb-part-';
for (const file of existsSync('dist') ? readdirSync('dist') : []) {
  if (file.startsWith(PART_PREFIX)) rmSync(join('dist', file));
}
/**
 * What src/cli/main.ts (dist/mlb.mjs) loads with import(), by the specifier it loads it with: the whole command line
 * the configuration parser thread and the gossip thread. They are built together, split, and the entry is built alone, so that `mlb
 * --help` reads one small file (scripts/build.mjs's entry check below holds it free of packages).
 */
const ENTRY_IMPORTS = {
  './cli-program': { name: 'mlb-cli', source: 'src/cli/cli-program.ts' },
  '../sources/file/worker-parser': { name: 'mlb-parser-worker', source: 'src/sources/file/worker-parser.ts' },
  '../daemon/gossip-thread/gossip-thread': { name: 'mlb-gossip-thread', source: 'src/daemon/gossip-thread/gossip-thread.ts' },
};
await build({
  ...common,
  entryPoints: Object.fromEntries(Object.values(ENTRY_IMPORTS).map((e) => [e.name, e.source])),
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  // Split: each command's module (src/cli/command-index.ts) is a file that only a run of that command loads, so
  // the commands that need little load little (parsing all of mlb is most of a start).
  splitting: true,
  chunkNames: `${PART_PREFIX}[hash]`,
  banner: { js: requireBanner },
  plugins: [tuiBesideBundle, kubernetesClientBesideBundle, asciiStringWidth],
});
/** In dist/mlb.mjs, main.ts's import()s stay import()s, of the files built above beside it. */
const entryImportsBeside = {
  name: 'entry-imports-beside',
  setup(b) {
    b.onResolve({ filter: /./ }, (args) => {
      const target = args.kind === 'dynamic-import' ? ENTRY_IMPORTS[args.path] : undefined;
      return target === undefined ? undefined : { path: `./${target.name}.mjs`, external: true };
    });
  },
};
/**
 * The entry may copy a few small files of mlb's (main.ts says which kind); a package in it is a sign that an import
 * pulled the command line back in (yargs: some 70 ms of every `mlb --help`).
 */
function checkEntry(metafile) {
  const packages = Object.keys(metafile.inputs).filter((input) => input.includes('node_modules'));
  if (packages.length > 0) throw new Error(`build: ${outfile} must bundle no package, but has ${packages.join(', ')}`);
}
/** dist/mlb.mjs alone; `define` adds to common's. */
async function buildEntry(define) {
  const result = await build({
    ...common,
    define: { ...common.define, ...define },
    entryPoints: ['src/cli/main.ts'],
    outfile,
    metafile: true,
    // A shebang so dist/mlb.mjs runs as `mlb`.
    banner: { js: `#!/usr/bin/env node\n${requireBanner}` },
    plugins: [entryImportsBeside],
  });
  checkEntry(result.metafile);
}
// Without the MLB_ variables (MLB_COMMIT above): mlb reads every MLB_X as its flag --x.
const withoutMlbFlags = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MLB_')));
/**
 * The widths `mlb --help` is baked in at (src/cli/prebuilt-answer.ts): 100 is its width when the output is no
 * terminal (src/cli/help-width.ts), 110 its cap (any terminal at least that wide), 80 the classic terminal's. Any
 * other width loads the whole command line, as every command does.
 */
const PREBUILT_HELP_WIDTHS = [80, 100, 110];
/**
 * `mlb --help` as the bundle just built prints it, its output made to look `width` columns wide (yargs and
 * help-width.ts read process.stdout.columns). That build has nothing baked in, so the whole command line answers.
 */
function helpAt(width) {
  const columns = `data:text/javascript,Object.defineProperty(process.stdout,'columns',{value:${width}})`;
  // In the C locale: yargs' own English, which is all the entry answers for (prebuilt-answer.ts).
  const env = { ...withoutMlbFlags, LC_ALL: 'C' };
  const run = spawnSync(process.execPath, ['--import', columns, outfile, '--help'], { encoding: 'utf8', env });
  if (run.status !== 0 || run.stderr !== '' || run.stdout === '') {
    throw new Error(`build: ${outfile} --help at ${width} columns: status ${run.status}, stderr ${JSON.stringify(run.stderr)}`);
  }
  return run.stdout;
}
// Twice: once to print the help with the bundle's own yargs, then again with that text baked in.
await buildEntry({});
const prebuiltHelp = Object.fromEntries(PREBUILT_HELP_WIDTHS.map((width) => [width, helpAt(width)]));
await buildEntry({ __MLB_PREBUILT_HELP__: JSON.stringify(prebuiltHelp) });
chmodSync(outfile, 0o755);
await build({
  ...common,
  entryPoints: [KUBERNETES_CLIENT_ENTRY],
  outfile: `dist/${KUBERNETES_CLIENT_FILE}`,
  // Imported from a data: URL in the one-file build, as the live view is.
  banner: { js: tuiRequireBanner },
});
await build({
  ...common,
  entryPoints: [TUI_ENTRY],
  outfile: `dist/${TUI_FILE}`,
  banner: { js: tuiRequireBanner },
  plugins: [inkWithoutDevMode],
});
/**
 * V8 keeps a script's source in memory for as long as the script lives, one byte per character while every
 * character fits in Latin-1 and two bytes per character as soon as one does not. esbuild escapes such characters in
 * strings and identifiers but leaves comments as they are, and a few comments of the Kubernetes client's
 * dependencies have curly quotes and dashes: its 5 MB file then cost 10 MB in every process that talks to a cluster.
 * Written as escapes (any left are in comments, where the text is not read), each file stays one byte per character.
 */
for (const file of readdirSync('dist').filter((f) => f.endsWith('.mjs'))) {
  const path = join('dist', file);
  const text = readFileSync(path, 'utf8');
  const latin1 = text.replace(/[^\u0000-\u00ff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (latin1 !== text) writeFileSync(path, latin1);
}
// The native addons (src/native: AF_PACKET sockets, and the UDP socket that reports TTLs for BFD) go beside the
// bundle, where the loaders look first. Without them (no g++ at install) the bundle still runs; only what needs
// them fails, saying why.
const releaseDir = 'build/Release';
const addons = existsSync(releaseDir) ? readdirSync(releaseDir).filter((f) => f.endsWith('.node')) : [];
for (const file of addons) {
  // Copy, then rename over the old file: overwriting it in place changes the pages of a shared object that running
  // daemons have mapped, and they crash (seen: SIGSEGV in the PacketSocket constructor after a rebuild).
  copyFileSync(join(releaseDir, file), `dist/${file}.tmp`);
  renameSync(`dist/${file}.tmp`, `dist/${file}`);
}
if (!addons.includes('mlb_native.node')) {
  console.warn(`build: ${releaseDir}/mlb_native.node is missing (npm rebuild builds it); dist/mlb.mjs will run without raw sockets`);
}
// The manual page, from the bundle's own command definitions (`mlb man`): one more start of mlb, some 100 ms.
writeFileSync('dist/mlb.1', execFileSync(process.execPath, [outfile, 'man'], { encoding: 'utf8', env: withoutMlbFlags }));
console.log(
  `built ${outfile} (and dist/mlb-cli.mjs, its ${PART_PREFIX}*.mjs), dist/${TUI_FILE}, dist/${KUBERNETES_CLIENT_FILE} and dist/mlb.1 (mlb ${pkg.version})`,
);
