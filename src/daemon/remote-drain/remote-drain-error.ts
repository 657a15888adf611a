/**
 * Why `mlb drain NODE` was refused before anything was asked (the control API answers with the code, and the
 * CLI exits 1 with the message). A drain that cannot be recorded on the target is drain-record.ts's error.
 */
import { CodedError } from '../../errors/coded-error';

export type RemoteDrainErrorCode =
  /** No member of that name, in any state: a typo (the message suggests the closest name). */
  | 'unknownNode'
  /**
   * The cluster runs without a gossip key: gossip is unauthenticated, so a drain request in it could come from
   * anyone who reaches the gossip port, and no node takes one. Drain on the node itself instead.
   */
  | 'remoteDrainNeedsKey'
  /** The member is a plain MetalLB speaker: it has no drain. */
  | 'notMlbNode';

export class RemoteDrainError extends CodedError<RemoteDrainErrorCode> {}
