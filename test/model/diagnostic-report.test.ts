/** The one order every report of a configuration uses: errors first, then warnings, each in file order. */
import { describe, expect, it } from 'vitest';
import { type Diagnostic, diagnosticReport, errorsFirst, reportSummary } from '../../src/model';

const at = (severity: Diagnostic['severity'], line: number, message = `${severity} on ${line}`): Diagnostic => ({
  severity,
  code: 'x',
  message,
  position: { file: 'f.yaml', line, column: 1 },
});

describe('errorsFirst', () => {
  it('puts every error before every warning, each in file order, and unplaced ones last in their group', () => {
    const unplaced: Diagnostic = { severity: 'error', code: 'fileEmpty', message: 'empty' };
    const ordered = errorsFirst([at('warning', 1), unplaced, at('error', 30), at('warning', 5), at('error', 23)]);
    expect(ordered.map((d) => `${d.severity}:${d.position?.line ?? '-'}`)).toEqual([
      'error:23',
      'error:30',
      'error:-',
      'warning:1',
      'warning:5',
    ]);
  });
});

describe('reportSummary', () => {
  const report = diagnosticReport([at('warning', 2), at('warning', 3), at('error', 23), at('error', 40), at('error', 41)]);

  it('fills a two-line banner with errors only and counts what it leaves out', () => {
    expect(reportSummary(report, 2)).toEqual({
      lines: ['f.yaml:23:1: error: error on 23', 'f.yaml:40:1: error: error on 40'],
      more: 'and 1 more error, 2 warnings',
    });
  });

  it('says nothing more when nothing is left out', () => {
    expect(reportSummary(diagnosticReport([at('error', 7)]), 2)).toEqual({ lines: ['f.yaml:7:1: error: error on 7'], more: null });
    expect(reportSummary(diagnosticReport([at('error', 7), at('warning', 1)]), 2).more).toBe('and 1 warning');
  });
});
