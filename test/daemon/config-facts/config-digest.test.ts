// The configuration digest is what nodes of different releases compare to notice that their files differ
// (src/daemon/config-facts/config-digest.ts): its bytes must not change from one release to the next, however it
// is computed. Pinned here on a file that uses every kind of object.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configDigest } from '../../../src/daemon/config-facts/config-digest';
import { parseConfig } from '../../../src/model/parse/parse-config';

function snapshotOf(path: string) {
  const parsed = parseConfig(readFileSync(path, 'utf8'), path);
  if (!parsed.ok) throw new Error(`${path} does not parse`);
  return parsed.snapshot;
}

describe('configDigest', () => {
  it('gives the digest earlier releases gave for the same objects', () => {
    expect(configDigest(snapshotOf('test/fixtures/valid/full-featured.yaml'))).toBe('9951caf9c280fa27');
  });

  it('ignores where objects were written and in which order', () => {
    const text = readFileSync('test/fixtures/valid/full-featured.yaml', 'utf8');
    const documents = text.split(/^---\s*$/m).filter((d) => d.trim() !== '');
    const shuffled = `# moved around\n\n${[...documents].reverse().join('---\n')}`;
    const parsed = parseConfig(shuffled, 'shuffled.yaml');
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(configDigest(parsed.snapshot)).toBe('9951caf9c280fa27');
  });
});
