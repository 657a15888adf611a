import { CodedError } from '../../errors/coded-error';

/**
 * Why `mlb install` refuses, before anything is written: each one names the flag or file to change. The codes
 * are stable (scripts and tests switch on them); the messages are for people.
 */
export type InstallProblemCode =
  | 'badNodeName'
  | 'badAddress'
  | 'addressNotOnHost'
  | 'missingAddress'
  | 'missingKey'
  | 'badKey'
  | 'missingConfig'
  | 'invalidConfig'
  | 'configDiffers'
  | 'keyDiffers'
  | 'noBinary';

export interface InstallProblem {
  readonly code: InstallProblemCode;
  readonly message: string;
}

/** A failure while applying the plan (a file not writable, groupadd or systemctl failing). */
export class InstallError extends CodedError<'applyFailed' | 'validateFailed' | 'statusFailed'> {}
