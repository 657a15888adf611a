// The parser thread's answer in chunks: cut, sent through structured clone (as postMessage does) and put back
// together, it is the Snapshot the parser made, frozen, with working AddressSets.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AddressSet } from '../../../src/ip';
import { AnswerAssembler, answerMessages } from '../../../src/sources/file/answer-chunks';
import { parseConfigBytes } from '../../../src/sources/file';

const FULL = readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'valid', 'full-featured.yaml'));

describe('answer chunks', () => {
  it('a valid answer survives chunking and structured clone unchanged', () => {
    const answer = parseConfigBytes(FULL, 'full-featured.yaml');
    if (!answer.result.ok) throw new Error('fixture does not validate');
    const messages = answerMessages(answer, 2);
    const objects = Object.values(answer.result.snapshot)
      .filter(Array.isArray)
      .reduce((n, list) => n + list.length, 0);
    expect(messages.length).toBeGreaterThan(objects / 2);
    expect(messages.every((m) => m.kind !== 'objects' || m.items.length <= 2)).toBe(true);
    const assembler = new AnswerAssembler();
    const results = messages.map((m) => assembler.add(structuredClone(m)));
    expect(results.slice(0, -1).every((r) => r === undefined)).toBe(true);
    const back = results.at(-1)!;
    expect(back).toEqual(answer);
    if (!back.result.ok) throw new Error('unreachable');
    expect(Object.isFrozen(back.result.snapshot.services[0])).toBe(true);
    expect(back.result.snapshot.pools[0]?.addressSet).toBeInstanceOf(AddressSet);
  });

  it('an invalid answer is one message', () => {
    const answer = parseConfigBytes(new TextEncoder().encode('kind: Nope\n'), 'f');
    expect(answerMessages(answer)).toEqual([{ kind: 'done', answer }]);
  });
});
