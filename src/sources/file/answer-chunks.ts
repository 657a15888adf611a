/**
 * The parser thread's answer, cut into messages of at most ANSWER_CHUNK_OBJECTS objects. Receiving a structured
 * clone is synchronous on the event loop: a configuration of 130 000 Services arriving as one message stalled it
 * for over 3 s (measured on a loaded 2-core VM), long enough for peers to declare the node dead. Sent in chunks,
 * each asked for only after the event loop has had a turn (worker-parser.ts), every stall stays short.
 */
import { deepFreeze, SNAPSHOT_LISTS, snapshotFromClone, type Snapshot, type SnapshotList } from '../../model';
import type { ParsedConfigFile } from './parse-config-bytes';

/**
 * Objects per message: about 25 µs each to receive and freeze on that VM, so some 50 ms per chunk at worst, well
 * inside the fast gossip profile's probe timeout.
 */
const ANSWER_CHUNK_OBJECTS = 2_000;

export type AnswerMessage =
  | { readonly kind: 'objects'; readonly list: SnapshotList; readonly items: readonly unknown[] }
  /** The answer itself; a valid Snapshot's lists were sent before it as 'objects' and are empty here. */
  | { readonly kind: 'done'; readonly answer: ParsedConfigFile };

/** The messages that carry `answer`, in order: every list in chunks, then the rest. */
export function answerMessages(answer: ParsedConfigFile, chunk = ANSWER_CHUNK_OBJECTS): AnswerMessage[] {
  const { result } = answer;
  if (!result.ok) return [{ kind: 'done', answer }];
  const messages: AnswerMessage[] = [];
  const shell: Record<string, unknown> = { ...result.snapshot };
  for (const list of SNAPSHOT_LISTS) {
    const items = result.snapshot[list];
    for (let at = 0; at < items.length; at += chunk) messages.push({ kind: 'objects', list, items: items.slice(at, at + chunk) });
    shell[list] = [];
  }
  messages.push({ kind: 'done', answer: { ...answer, result: { ...result, snapshot: shell as unknown as Snapshot } } });
  return messages;
}

/** Puts the answer back together on the receiving side, freezing each chunk as it arrives. */
export class AnswerAssembler {
  private readonly lists = new Map<SnapshotList, unknown[]>(SNAPSHOT_LISTS.map((list) => [list, []]));

  /** The whole answer once `message` was the last one, else undefined. */
  add(message: AnswerMessage): ParsedConfigFile | undefined {
    if (message.kind === 'objects') {
      const into = this.lists.get(message.list)!;
      for (const item of message.items) into.push(deepFreeze(item));
      return undefined;
    }
    const { result, digest } = message.answer;
    if (!result.ok) return message.answer;
    const snapshot = { ...result.snapshot, ...Object.fromEntries(this.lists) } as unknown as Snapshot;
    return { result: { ok: true, snapshot: snapshotFromClone(snapshot), diagnostics: result.diagnostics }, digest };
  }
}
