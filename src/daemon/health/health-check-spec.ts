/**
 * What a Service asks to be checked with, read from its mlb.io/health-check annotations. The parser itself lives
 * in src/model/parse/health-check.ts: `mlb validate` and a configuration reload refuse a bad check with the
 * annotation's file:line:column, and pure model code may not import the daemon. The daemon's health code takes
 * the same function from here, so what validates is exactly what runs.
 */
export {
  parseHealthCheck,
  HEALTH_CHECK_DEFAULTS,
  type HealthCheckParse,
  type HealthCheckProblem,
  type HealthCheckSpec,
  type HealthCheckTiming,
} from '../../model/parse/health-check';
