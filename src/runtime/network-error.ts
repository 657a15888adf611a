import { CodedError } from '../errors/coded-error';

/** A socket could not be bound, or a connection not made in time: the same codes on every runtime. */
export class NetworkError extends CodedError<'bindFailed' | 'dialFailed' | 'dialTimeout'> {}
