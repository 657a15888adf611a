// Paged lists as client-go's pager reads them: every object exactly once across pages, each page reporting the
// first page's resourceVersion, an object deleted between pages not shifting the rest.
import { describe, expect, it } from 'vitest';
import { pageOf, pageRequestOf } from './list-pages';

const entries = (keys: string[]) => keys.map((key) => ({ key, item: key }));

describe('paged lists', () => {
  it('hand out every item once, in order, with the first page resourceVersion on every page', () => {
    const all = entries(['a/1', 'a/2', 'b/1', 'b/2', 'c/1']);
    const seen: string[] = [];
    let token: string | undefined;
    const versions: number[] = [];
    let revision = 100;
    do {
      const page = pageOf(all, { limit: 2, ...(token && { continueToken: token }) }, revision++);
      seen.push(...page.items);
      versions.push(page.resourceVersion);
      token = page.continueToken;
    } while (token);
    expect(seen).toEqual(['a/1', 'a/2', 'b/1', 'b/2', 'c/1']);
    expect(versions).toEqual([100, 100, 100]);
  });

  it('continue after the last key sent, even when that object was deleted meanwhile', () => {
    const first = pageOf(entries(['a', 'b', 'c', 'd']), { limit: 2 }, 7);
    expect(first.remainingItemCount).toBe(2);
    const next = pageOf(entries(['a', 'c', 'd']), { limit: 2, continueToken: first.continueToken! }, 9);
    expect(next.items).toEqual(['c', 'd']);
    expect(next.continueToken).toBeUndefined();
  });

  it('read limit and continue from the query; no limit is everything at once; a bad token is 400', () => {
    expect(pageRequestOf(new URLSearchParams('limit=500&continue=abc'))).toEqual({ limit: 500, continueToken: 'abc' });
    expect(pageRequestOf(new URLSearchParams(''))).toEqual({});
    expect(pageOf(entries(['a', 'b']), {}, 1).items).toEqual(['a', 'b']);
    expect(() => pageOf(entries(['a']), { continueToken: 'not-a-token' }, 1)).toThrow(/continue/);
  });
});
