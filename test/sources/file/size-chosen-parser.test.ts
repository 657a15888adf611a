/**
 * The daemon's reload parser (src/sources/file/size-chosen-parser.ts): a file up to IN_PROCESS_PARSE_MAX_BYTES is
 * parsed in-process, a larger one on the worker, and each gets the request and the abort signal unchanged.
 */
import { describe, expect, it } from 'vitest';
import type { ConfigParser, ParseRequest } from '../../../src/sources/file';
import { IN_PROCESS_PARSE_MAX_BYTES, parseInProcess, sizeChosenParser } from '../../../src/sources/file';

const TEXT = 'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata: { name: lan }\nspec: { addresses: [192.0.2.0/28] }\n';

describe('sizeChosenParser', () => {
  it('parses a small file with the first parser and a large one with the second, passing the signal on', async () => {
    const seen: { by: string; bytes: number; signal: AbortSignal | undefined }[] = [];
    const recording =
      (by: string): ConfigParser =>
      (request, signal) => {
        seen.push({ by, bytes: request.bytes.byteLength, signal });
        return parseInProcess(request, signal);
      };
    const parse = sizeChosenParser(recording('in-process'), recording('worker'));
    const request = (bytes: Uint8Array): ParseRequest => ({ bytes, file: 'mlb.yaml', options: {} });
    const small = new TextEncoder().encode(TEXT);
    // The same document padded with a comment to one byte past the limit.
    const large = new TextEncoder().encode(TEXT + '#'.repeat(IN_PROCESS_PARSE_MAX_BYTES - TEXT.length) + '\n');
    const abort = new AbortController();
    const smallResult = await parse(request(small), abort.signal);
    const largeResult = await parse(request(large));
    expect(seen).toEqual([
      { by: 'in-process', bytes: small.byteLength, signal: abort.signal },
      { by: 'worker', bytes: IN_PROCESS_PARSE_MAX_BYTES + 1, signal: undefined },
    ]);
    expect(smallResult.result.ok && largeResult.result.ok).toBe(true);
  });
});
