import type { GossipMessage } from '../messages';
import type { PeerAddress } from './address';

/** Everything that can happen to a SWIM node; `now` travels beside the event. */
export type SwimEvent =
  /** Time passed: fire every timer due at `now` (every other event does so first, too). */
  | { readonly type: 'tick' }
  /** A decoded UDP packet (a compound already flattened, in order) from `from`. */
  | { readonly type: 'packet'; readonly from: PeerAddress; readonly messages: readonly GossipMessage[] }
  /** A peer opened a stream and sent `message` (pushPull, ping, user); answer with a replyStream effect. */
  | { readonly type: 'inboundStream'; readonly stream: number; readonly from: PeerAddress; readonly message: GossipMessage }
  /** The reply on a stream we opened (openStream effect). */
  | { readonly type: 'streamReply'; readonly stream: number; readonly message: GossipMessage }
  /** A stream we opened failed: refused, timed out, undecodable reply. */
  | { readonly type: 'streamFailed'; readonly stream: number; readonly error: string }
  /** memberlist Join: a push/pull with Join=true to each address (already resolved by the driver). */
  | { readonly type: 'join'; readonly targets: readonly PeerAddress[] }
  /** memberlist Leave(timeout): 0 waits for the broadcast without a time limit. */
  | { readonly type: 'leave'; readonly timeout: number }
  /** memberlist UpdateNode with new meta (at most META_MAX_BYTES, else SwimConfigError). */
  | { readonly type: 'setMeta'; readonly meta: Uint8Array }
  /** Queue a user broadcast; a `key` replaces the queued broadcast with the same key. */
  | { readonly type: 'broadcast'; readonly payload: Uint8Array; readonly key?: string }
  /** Replace the user state sent in push/pull (memberlist Delegate.LocalState). */
  | { readonly type: 'setLocalState'; readonly userState: Uint8Array };
