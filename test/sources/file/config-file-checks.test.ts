// The pure decisions about a configuration file on disk: kind, size, completeness, text, and "holds something".
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/model';
import {
  DEFAULT_MAX_CONFIG_BYTES,
  decodeConfigBytes,
  emptyConfigProblem,
  fileKindProblem,
  fileSizeProblem,
} from '../../../src/sources/file';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const POOL = 'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: p\nspec:\n  addresses: [10.0.0.0/24]\n';

function kind(which: 'file' | 'fifo' | 'dir' | 'chr') {
  return {
    isFile: () => which === 'file',
    isDirectory: () => which === 'dir',
    isFIFO: () => which === 'fifo',
    isSocket: () => false,
    isCharacterDevice: () => which === 'chr',
    isBlockDevice: () => false,
  };
}

describe('fileKindProblem', () => {
  it('accepts a regular file and names what anything else is', () => {
    expect(fileKindProblem(kind('file'), 'mlb.yaml')).toBeUndefined();
    expect(fileKindProblem(kind('fifo'), 'mlb.yaml')).toMatchObject({ severity: 'error', code: 'fileNotRegular' });
    expect(fileKindProblem(kind('fifo'), 'mlb.yaml')?.message).toMatch(/^mlb\.yaml is a FIFO \(named pipe\), not a regular file/);
    expect(fileKindProblem(kind('dir'), 'mlb.yaml')?.message).toContain('is a directory');
    expect(fileKindProblem(kind('chr'), 'mlb.yaml')?.message).toContain('is a character device');
  });
});

describe('fileSizeProblem', () => {
  it('refuses only beyond the limit, and says which flag raises it', () => {
    expect(fileSizeProblem(DEFAULT_MAX_CONFIG_BYTES, DEFAULT_MAX_CONFIG_BYTES, 'f')).toBeUndefined();
    const problem = fileSizeProblem(DEFAULT_MAX_CONFIG_BYTES + 1, DEFAULT_MAX_CONFIG_BYTES, 'f');
    expect(problem?.code).toBe('fileTooLarge');
    expect(problem?.message).toBe(
      'f is 16777217 bytes, more than the limit of 16777216 bytes: if it really is meant to be this large, raise --max-config-bytes (MLB_MAX_CONFIG_BYTES)',
    );
  });
});

describe('decodeConfigBytes', () => {
  it('decodes complete UTF-8 text, CRLF and empty files included', () => {
    expect(decodeConfigBytes(bytes('a: é\n'), 'f')).toEqual({ ok: true, text: 'a: é\n' });
    expect(decodeConfigBytes(bytes('a: 1\r\n'), 'f')).toEqual({ ok: true, text: 'a: 1\r\n' });
    expect(decodeConfigBytes(bytes(''), 'f')).toEqual({ ok: true, text: '' });
  });

  it('refuses a file whose last line has no newline, pointing at where it ends', () => {
    const cut = POOL.slice(0, POOL.length - 5); // ends "  addresses: [10.0.0.0", as a writer cut short leaves it
    const result = decodeConfigBytes(bytes(cut), 'mlb.yaml');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.diagnostic).toMatchObject({ code: 'fileIncomplete', position: { file: 'mlb.yaml', line: 6, column: 23 } });
    expect(result.diagnostic.message).toContain('mlb.yaml does not end with a newline');
    expect(result.diagnostic.message).toContain('rename it over mlb.yaml');
  });

  it('refuses NUL bytes (a preallocated file not yet filled) with their position', () => {
    const result = decodeConfigBytes(bytes(`${POOL}\0\0\0\n`), 'f');
    expect(result).toMatchObject({ ok: false, diagnostic: { code: 'fileNotText', position: { line: 7, column: 1 } } });
  });

  it('refuses bytes that are not UTF-8', () => {
    const latin1 = Uint8Array.from([...bytes('# M'), 0xfc, ...bytes('ller\n')]);
    expect(decodeConfigBytes(latin1, 'f')).toMatchObject({ ok: false, diagnostic: { code: 'fileNotText' } });
  });
});

describe('emptyConfigProblem', () => {
  const snapshotOf = (text: string) => {
    const result = parseConfig(text, 'f');
    if (!result.ok) throw new Error('fixture does not parse');
    return result.snapshot;
  };

  it.each([
    ['an empty file', ''],
    ['only comments', '# nothing yet\n'],
    ['only document markers and comments', '---\n# a\n---\n...\n'],
  ])('refuses %s', (_name, text) => {
    const problem = emptyConfigProblem(snapshotOf(text), 'mlb.yaml');
    expect(problem?.code).toBe('fileEmpty');
    expect(problem?.message).toMatch(/^mlb\.yaml holds no objects/);
  });

  it('accepts a file with one object', () => {
    expect(emptyConfigProblem(snapshotOf(POOL), 'f')).toBeUndefined();
  });
});
