/** The part of the daemon's pino logger a session uses (pino's Logger fits; tests pass a silent one). */
import type { Logger } from 'pino';

export type SessionLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
