// The daemon's parser: a worker thread running the built bundle (dist/mlb.mjs, which `npm test` builds first). It
// gives the same Snapshot as the in-process parser, keeps the event loop free while a large file is parsed, and
// turns a worker that runs out of memory or is cancelled into a typed error.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressSet, parseIP } from '../../../src/ip';
import { type ConfigParser, ConfigParseError, FileSource, parseInProcess, workerParser } from '../../../src/sources/file';
import { MLB_BUNDLE } from '../../cli/run-cli';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');
const FULL = readFileSync(join(FIXTURES, 'valid', 'full-featured.yaml'), 'utf8');
const TUTORIAL_L2 = readFileSync(join(FIXTURES, 'valid', 'tutorial-l2.yaml'), 'utf8');
/** The size of the large file: large enough that parsing it takes far longer than the 10 ms tick counted below. */
const LARGE_FILE_BYTES = 20 * 1024 * 1024;
const TICK_MS = 10;
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function bundleParser(options: Parameters<typeof workerParser>[0] = {}): ConfigParser {
  if (!existsSync(MLB_BUNDLE)) throw new Error(`${MLB_BUNDLE} is missing: run "npm run build" first`);
  return workerParser({ script: MLB_BUNDLE, ...options });
}

/** Counts the ticks of a TICK_MS interval, and the longest event-loop delay, while `work` runs. */
async function loopActivity<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number; maxDelayMs: number }> {
  let ticks = 0;
  const interval = setInterval(() => ticks++, TICK_MS);
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  try {
    const result = await work();
    return { result, ticks, maxDelayMs: delay.max / 1e6 };
  } finally {
    delay.disable();
    clearInterval(interval);
  }
}

describe('workerParser', () => {
  it('gives the Snapshot the in-process parser gives, AddressSets working and everything frozen', async () => {
    const request = () => ({ bytes: bytes(FULL), file: 'full-featured.yaml', options: {} });
    const [inWorker, inProcess] = await Promise.all([bundleParser()(request()), parseInProcess(request())]);
    expect(inWorker).toEqual(inProcess);
    const { result } = inWorker;
    if (!result.ok) throw new Error('full-featured.yaml does not validate');
    const pool = result.snapshot.pools[0]!;
    expect(pool.addressSet).toBeInstanceOf(AddressSet);
    expect(pool.addressSet.has(pool.cidrs[0]!.ip)).toBe(true);
    expect(pool.addressSet.has(parseIP('203.0.113.254')!)).toBe(false);
    expect(Object.isFrozen(result.snapshot)).toBe(true);
    expect(Object.isFrozen(pool.meta)).toBe(true);
  });

  it('reloads on the worker after an in-process first load: the readings kept on this thread stay here', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mlb-worker-reload-'));
    const file = join(dir, 'mlb.yaml');
    writeFileSync(file, TUTORIAL_L2);
    const daemonSource = new FileSource(file, { firstParse: parseInProcess, parse: bundleParser(), settleMs: 0, useFsWatch: false });
    try {
      await daemonSource.start();
      writeFileSync(file, FULL);
      const state = await daemonSource.reload();
      expect(state.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const expected = (await parseInProcess({ bytes: bytes(FULL), file, options: {} })).result;
      expect(expected.ok && state.snapshot).toEqual(expected.ok && expected.snapshot);
      expect(state.snapshot?.bgpPeers.length).toBeGreaterThan(0);
    } finally {
      daemonSource.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('judges the bytes on the worker: invalid, cut off and empty files come back with their diagnostics', async () => {
    const parse = bundleParser();
    const codes = async (text: string) =>
      (await parse({ bytes: bytes(text), file: 'f.yaml', options: {} })).result.diagnostics.map((d) => d.code);
    expect(await codes('kind: Nope\n')).toContain('unknownKind');
    expect(await codes(TUTORIAL_L2.slice(0, -3))).toEqual(['fileIncomplete']);
    expect(await codes('# nothing\n')).toEqual(['fileEmpty']);
  });

  it('a parse that needs more than its heap limit is refused with a typed error, and this process carries on', async () => {
    const services = Array.from(
      { length: 20_000 },
      (_, i) => `---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s${i}\nspec:\n  type: LoadBalancer\n  ports: [{ port: 80 }]\n`,
    ).join('');
    const error = await bundleParser({ heapLimitMb: 8 })({ bytes: bytes(services), file: 'f.yaml', options: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigParseError);
    expect((error as ConfigParseError).code).toBe('parseOutOfMemory');
  });

  it('an aborted parse rejects at once with parseAborted', async () => {
    const controller = new AbortController();
    const parsing = bundleParser()(
      { bytes: bytes(`${'# filler\n'.repeat(2_000_000)}${TUTORIAL_L2}`), file: 'f.yaml', options: {} },
      controller.signal,
    );
    controller.abort();
    await expect(parsing).rejects.toMatchObject({ code: 'parseAborted' });
  });
});

describe('parsing a large file does not stall the event loop', () => {
  let dir: string;
  let file: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mlb-large-config-'));
    file = join(dir, 'mlb.yaml');
    // A valid configuration padded with comments, as a file that grew big without anyone noticing would be.
    const line = `# ${'padding '.repeat(12)}\n`;
    writeFileSync(file, TUTORIAL_L2 + line.repeat(Math.ceil(LARGE_FILE_BYTES / line.length)));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the daemon's parser (a worker thread) leaves the loop ticking; the in-process one would not", async () => {
    const daemonSource = new FileSource(file, { parse: bundleParser(), maxBytes: 2 * LARGE_FILE_BYTES, settleMs: 0, useFsWatch: false });
    const inWorker = await loopActivity(() => daemonSource.start());
    daemonSource.stop();
    expect(inWorker.result.snapshot?.services).toHaveLength(3);
    // The control: the same measurement around a synchronous parse of a slice of the file sees no tick at all.
    const slice = readFileSync(file, 'utf8').slice(0, 2 * 1024 * 1024);
    const inProcess = await loopActivity(() =>
      parseInProcess({ bytes: bytes(slice.slice(0, slice.lastIndexOf('\n') + 1)), file, options: {} }),
    );
    expect(inProcess.ticks).toBe(0);
    // The worker's parse of 20 MB takes 0.2-0.3 s here (about 20-30 ticks at a 10 ms interval on a free loop), where
    // the synchronous parse of a tenth of it gave none: 5 leaves room for a busy machine and a faster parser.
    expect(inWorker.ticks).toBeGreaterThanOrEqual(5);
    console.log(`large file: ${inWorker.ticks} ticks of ${TICK_MS} ms, longest event-loop delay ${inWorker.maxDelayMs.toFixed(1)} ms`);
  });
});
