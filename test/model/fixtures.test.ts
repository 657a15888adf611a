// Table-driven: every file under test/fixtures/invalid must fail with the diagnostics its "# expect:" lines name
// (code, line:column, a key part of the message); every file under test/fixtures/valid must load, with exactly
// the warnings its "# expect:" lines name.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Diagnostic, parseConfig } from '../../src/model';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

interface Expectation {
  readonly code: string;
  readonly line: number;
  readonly column: number;
  readonly fragment: string;
}

function expectations(text: string): Expectation[] {
  return [...text.matchAll(/^# expect: (\S+) (\d+):(\d+) (.+)$/gm)].map((m) => ({
    code: m[1] as string,
    line: Number(m[2]),
    column: Number(m[3]),
    fragment: m[4] as string,
  }));
}

function matches(d: Diagnostic, e: Expectation): boolean {
  return d.code === e.code && d.position?.line === e.line && d.position.column === e.column && d.message.includes(e.fragment);
}

function fixtures(folder: string): { name: string; text: string }[] {
  return readdirSync(join(FIXTURES, folder))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(FIXTURES, folder, name), 'utf8') }));
}

const invalid = fixtures('invalid');
const valid = fixtures('valid');

describe('invalid configurations', () => {
  it('has at least 35 malformed configurations, each with an expectation', () => {
    expect(invalid.length).toBeGreaterThanOrEqual(35);
    for (const f of invalid) expect(expectations(f.text), f.name).not.toHaveLength(0);
  });

  it.each(invalid)('$name is refused with the expected diagnostics', ({ name, text }) => {
    const result = parseConfig(text, name);
    expect(result.ok).toBe(false);
    for (const e of expectations(text)) {
      const found = result.diagnostics.find((d) => matches(d, e));
      expect(found, `${e.code} at ${e.line}:${e.column} "${e.fragment}" in\n${JSON.stringify(result.diagnostics, null, 1)}`).toBeDefined();
      expect(found?.severity).toBe('error');
      expect(found?.position?.file).toBe(name);
    }
  });
});

describe('valid configurations', () => {
  it.each(valid)('$name loads with exactly the expected warnings', ({ name, text }) => {
    const result = parseConfig(text, name);
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.ok).toBe(true);
    const expected = expectations(text);
    // Notes (the ipFamilies mlb chose for a Service that wrote none) are not findings.
    const findings = result.diagnostics.filter((d) => d.severity !== 'note');
    expect(findings).toHaveLength(expected.length);
    for (const e of expected) {
      expect(
        findings.some((d) => matches(d, e) && d.severity === 'warning'),
        JSON.stringify(e),
      ).toBe(true);
    }
    if (result.ok) expect(result.snapshot.warnings).toEqual(findings);
  });
});
