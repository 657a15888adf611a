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

/**
 * The same log with its info lines demoted to debug: for a part whose routine news another layer already tells
 * (gossip's "joined", "alive": the speaker logs memberJoined and memberUpdated itself).
 */
export function infoAsDebug(log: Log): Log {
  return {
    debug: (fields, msg) => log.debug(fields, msg),
    info: (fields, msg) => log.debug(fields, msg),
    warn: (fields, msg) => log.warn(fields, msg),
    error: (fields, msg) => log.error(fields, msg),
  };
}
