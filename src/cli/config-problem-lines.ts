/**
 * The lines under a STALE configuration, in `mlb status --once` and the view: errors first, then warnings (the
 * daemon already sends them apart and in file order; model/diagnostic-report decides the order everywhere).
 */
// The file itself, not the model's index: that loads the parser and yaml, which `mlb status` never runs.
import { type DiagnosticReport, reportSummary } from '../model/diagnostic-report';
import type { ControlSnapshot } from '../daemon/control/control-snapshot';

function configReport(config: ControlSnapshot['config']): DiagnosticReport {
  return { errors: config.errors, warnings: config.warnings ?? [] };
}

/** Every error, then every warning: --once is the whole picture. */
export function allConfigProblems(config: ControlSnapshot['config']): string[] {
  const report = configReport(config);
  return [...report.errors, ...report.warnings];
}

/** The view's banner: the first `maxErrors` errors, then "and N more errors, M warnings" when anything is left out. */
export function configProblemBanner(config: ControlSnapshot['config'], maxErrors: number): string[] {
  const { lines, more } = reportSummary(configReport(config), maxErrors);
  return more === null ? lines : [...lines, `${more} (mlb status --once lists them)`];
}
