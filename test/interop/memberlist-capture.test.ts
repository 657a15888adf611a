/**
 * Live against Go memberlist 0.2.2: builds test/interop/go/memberlist-capture (cached per source hash), runs
 * its clusters on 127.0.0.1 now, and checks the fresh capture like the committed ones
 * (test/gossip/codec/capture-checks.ts): every packet and stream decodes without a drop, the content matches
 * the nodes, and mlb's encoder reproduces Go's bytes (with Go's nonces). Timing decides which message types a
 * short run shows, so only the ones every run has are required here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkContent, checkKey, checkReencoding, decodeCapture, loadCaptures, SCENARIOS } from '../gossip/codec/capture-checks';
import { buildGoProgram, goMissingMessage, goPathWith, goToolchain, runGoProgram } from './go-program';

const MEMBERLIST = 'github.com/hashicorp/memberlist';
const go = goToolchain();
const gopath = goPathWith(MEMBERLIST);
const missing = !go.available
  ? goMissingMessage()
  : gopath === undefined
    ? `the memberlist source (${MEMBERLIST}) is not installed (Debian: apt-get install golang-github-hashicorp-memberlist-dev)`
    : undefined;
if (missing) {
  if (process.env.CI) throw new Error(`${missing} (CI is set, so this is a failure)`);
  console.warn(`skipping test/interop/memberlist-capture.test.ts: ${missing}`);
}

describe.skipIf(missing !== undefined)('a live capture from memberlist 0.2.2', () => {
  const out = mkdtempSync(join(tmpdir(), 'mlb-capture-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('decodes, matches the nodes and re-encodes byte for byte', () => {
    const binary = buildGoProgram('memberlist-capture', { gopath: [gopath as string] });
    runGoProgram(binary, '', ['-out', out], 60_000);
    const captures = loadCaptures(out);
    expect(captures.map((c) => c.scenario).sort()).toEqual([...SCENARIOS].sort());
    for (const c of captures) {
      const seen = checkContent(c, decodeCapture(c, 1 + (c.packets.length % 17)));
      for (const t of ['alive', 'user', 'stream:pushPull', 'stream:user', 'join']) expect(seen, `${c.scenario} has ${t}`).toContain(t);
      expect(c.packets.length).toBeGreaterThan(10);
      checkReencoding(c);
      checkKey(c);
    }
  }, 120_000);
});
