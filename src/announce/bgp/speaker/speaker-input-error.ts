/**
 * The one error class of the speaker core, with stable codes (docs/architecture.md, convention 6). The inputs come
 * from the election, which only hands over validated configuration, so these mean a bug upstream, not a user
 * mistake.
 */

import { CodedError } from '../../../errors/coded-error';

export const SPEAKER_INPUT_ERROR_CODES = [
  /** A community text that is neither "a:b" (16-bit fields) nor "a:b:c" (32-bit fields). */
  'badCommunityText',
  /** A BGPAnnouncement prefix that is not "address/length". */
  'badPrefixText',
] as const;

export type SpeakerInputErrorCode = (typeof SPEAKER_INPUT_ERROR_CODES)[number];

export class SpeakerInputError extends CodedError<SpeakerInputErrorCode> {}
