/**
 * The one logging seam: what every shell is handed to say what happened. pino's Logger fits it (the daemon passes
 * its own); tests pass SILENT_LOG or a recorder. Fields first, message second, as pino takes them: the fields are
 * what log queries match on, the message is for people.
 */
export interface Log {
  debug(fields: object, msg?: string): void;
  info(fields: object, msg?: string): void;
  warn(fields: object, msg?: string): void;
  error(fields: object, msg?: string): void;
}

/** Says nothing: for tools and tests that do not want a shell's log. */
export const SILENT_LOG: Log = Object.freeze({ debug() {}, info() {}, warn() {}, error() {} });
