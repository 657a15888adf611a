/**
 * scripts/check-structure.mjs on small source trees written here (a cycle, a pure module reaching for I/O, a clean
 * tree) and on this repository. The exit code and messages are checked by running it as `npm test` does; the
 * other cases call the same function in-process, because loading TypeScript per run costs a second or two.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { checkStructure as checkInProcess } from '../../scripts/check-structure.mjs';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
const SCRIPT = join(REPO_ROOT, 'scripts/check-structure.mjs');
const run = promisify(execFile);

interface CheckRun {
  code: number;
  stdout: string;
  stderr: string;
}

async function checkStructure(root: string): Promise<CheckRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [SCRIPT, root]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The problems the check reports, as one text, in-process. */
function problemsOf(root: string): { code: number; stderr: string } {
  const { problems } = checkInProcess(root);
  return { code: problems.length > 0 ? 1 : 0, stderr: problems.join('\n') };
}

const trees: string[] = [];
afterEach(() => {
  for (const tree of trees.splice(0)) rmSync(tree, { recursive: true, force: true });
});

/** A source tree of the given files (path under the root -> text). */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'mlb-structure-'));
  trees.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const CLEAN = {
  'src/ip/parse-ip.ts': 'export function parseIP(text: string): string { return text.trim(); }\n',
  'src/model/snapshot.ts': "import { parseIP } from '../ip/parse-ip';\nexport const first = parseIP(' 192.0.2.1 ');\n",
  'src/election/hash-order.ts':
    "import { createHash } from 'node:crypto';\nimport type { first } from '../model/snapshot';\n" +
    "export const hash = (s: typeof first) => createHash('sha256').update(s).digest('hex');\n",
  'src/daemon/speaker.ts':
    "import { readFileSync } from 'node:fs';\nimport { hash } from '../election';\n" +
    "import type { Later } from '../runtime/later';\n" +
    "export const tick = (later: Later) => later(1000, () => hash(readFileSync('/dev/null', 'utf8')));\n",
  'src/election/index.ts': "export * from './hash-order';\n",
  'src/runtime/later.ts':
    'export type Later = (ms: number, f: () => void) => void;\nexport const later: Later = (ms, f) => void setTimeout(f, ms);\n',
};

describe('check-structure', () => {
  it('passes a tree whose pure modules import only pure modules and whose shell does the I/O', async () => {
    const result = await checkStructure(tree(CLEAN));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/structure ok: 6 files/);
  });

  it('fails on an import cycle and prints the files that form it, type-only imports included', async () => {
    const result = await checkStructure(
      tree({
        ...CLEAN,
        'src/daemon/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
        'src/daemon/b.ts': "import type { a } from './a';\nexport const b: typeof a | undefined = undefined;\n",
      }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('import cycle among 2 file(s): src/daemon/a.ts, src/daemon/b.ts');
    expect(result.stderr).toContain('src/daemon/a.ts:1 -> src/daemon/b.ts');
    expect(result.stderr).toContain('src/daemon/b.ts:1 -> src/daemon/a.ts (type import)');
  });

  it('fails when a pure folder imports an I/O module, naming file, line and module', () => {
    const result = problemsOf(
      tree({
        ...CLEAN,
        'src/model/load.ts': "export const x = 1;\nimport { readFileSync } from 'node:fs';\nexport const load = () => readFileSync('x');\n",
      }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("src/model/load.ts:2: pure module imports 'node:fs'");
  });

  it('fails when a pure module imports an adapter from the shell', () => {
    const result = problemsOf(
      tree({
        ...CLEAN,
        'src/allocator/pick.ts': "import { tick } from '../daemon/speaker';\nexport const pick = tick;\n",
      }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "src/allocator/pick.ts:1: pure module imports '../daemon/speaker' (src/daemon/speaker.ts), which is not pure",
    );
  });

  it('fails when a pure module uses the ambient clock, timers or randomness instead of having them injected', () => {
    const result = problemsOf(
      tree({
        ...CLEAN,
        'src/gossip/swim/probe.ts':
          'export const due = (interval: number) => Date.now() + interval;\n' +
          'export const later = (f: () => void) => setTimeout(f, 10);\n' +
          'export const jitter = () => Math.random();\n',
        'src/gossip/codec/nonce.ts': "import { randomBytes } from 'node:crypto';\nexport const nonce = () => randomBytes(12);\n",
      }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('src/gossip/swim/probe.ts:1: pure module uses Date.now');
    expect(result.stderr).toContain('src/gossip/swim/probe.ts:2: pure module uses setTimeout');
    expect(result.stderr).toContain('src/gossip/swim/probe.ts:3: pure module uses Math.random');
    expect(result.stderr).toContain('src/gossip/codec/nonce.ts:1: pure module uses randomBytes');
  });

  it('fails when a module outside the runtime and the CLI opens sockets or arms timers itself, comments aside', () => {
    const result = problemsOf(
      tree({
        ...CLEAN,
        'src/daemon/metrics.ts':
          "// node's net.createServer and setTimeout are named in this comment only\n" +
          "import type { Socket } from 'node:net';\nimport { createServer } from 'http';\n" +
          'export const serve = (s: Socket) => createServer(() => s.setTimeout(5));\n' +
          'export const later = (f: () => void) => globalThis.setTimeout(f, 10);\n' +
          'export const soon = (f: () => void) => setImmediate(f);\n',
        'src/announce/bfd/udp.ts': "import { createSocket } from 'node:dgram';\nexport const open = () => createSocket('udp4');\n",
        'src/cli/lab/wait.ts':
          "import { request } from 'node:http';\nexport const wait = (f: () => void) => setTimeout(f, 10);\nexport { request };\n",
      }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("src/daemon/metrics.ts:2: imports 'node:net' outside src/runtime/ and src/cli/");
    expect(result.stderr).toContain("src/daemon/metrics.ts:3: imports 'http' outside src/runtime/ and src/cli/");
    expect(result.stderr).toContain('src/daemon/metrics.ts:5: calls setTimeout outside');
    expect(result.stderr).toContain('src/daemon/metrics.ts:6: calls setImmediate outside');
    expect(result.stderr).toContain("src/announce/bfd/udp.ts:1: imports 'node:dgram'");
    // The comment on line 1, the socket option on line 4, the runtime and the CLI are not I/O outside the seam.
    expect(result.stderr).not.toMatch(/metrics\.ts:[14]:/);
    expect(result.stderr).not.toMatch(/^src\/(cli|runtime)\//m);
  });

  it('passes on this repository', async () => {
    const result = await checkStructure(REPO_ROOT);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/structure ok: \d+ files/);
  });
});
