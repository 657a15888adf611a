import { CodedError } from '../errors/coded-error';

/**
 * A socket could not be bound, or a connection not made in time: the same codes on every runtime.
 * 'portInUse' is a bind that failed only because the port is taken (a caller drawing random ports tries another);
 * 'notOnVirtualNetwork' is a host facility (HTTP, TTL-reporting UDP, MD5-signed TCP) the virtual network does not
 * simulate (virtual/virtual-host-io.ts).
 */
export class NetworkError extends CodedError<'bindFailed' | 'dialFailed' | 'dialTimeout' | 'portInUse' | 'notOnVirtualNetwork'> {}
