/**
 * The dialler's side of a gossip stream: after writing its message, it reads exactly one reply, or fails when the
 * peer closes first, the reply cannot be decoded (a different key shows here), or the deadline passes.
 */
import type { StreamReader } from './codec';
import type { GossipMessage } from './messages';
import type { ByteStream, Scheduler } from '../runtime';
import { CodedError } from '../errors/coded-error';

/** A reply that arrived but could not be read; `reasons` are its drop reasons (a different key shows here). */
export class UndecodableReply extends CodedError<'undecodableReply'> {
  constructor(readonly reasons: readonly string[]) {
    super('undecodableReply', `undecodable reply: ${reasons.join(', ')}`);
  }
}

/** Reads one message from `stream`; must be called the turn the stream was handed over (ByteStream.onData). */
export function readOneMessage(
  stream: ByteStream,
  reader: StreamReader,
  timeoutMs: number,
  scheduler: Scheduler,
  onDrop: (reason: string) => void,
): Promise<GossipMessage> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      timer.cancel();
      settle();
    };
    const timer = scheduler.after(timeoutMs, () => finish(() => reject(new Error(`no reply within ${timeoutMs} ms`))));
    stream.onData((chunk) => {
      if (settled) return;
      const out = reader.push(chunk);
      for (const drop of out.drops) onDrop(drop.reason);
      const message = out.messages[0];
      if (message) finish(() => resolve(message));
      else if (reader.failed) finish(() => reject(new UndecodableReply(out.drops.map((d) => d.reason))));
    });
    stream.onEnd(() => finish(() => reject(new Error('stream closed without a reply'))));
    stream.onClose((error) => finish(() => reject(error ?? new Error('stream closed without a reply'))));
  });
}
