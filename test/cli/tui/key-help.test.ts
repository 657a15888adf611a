/** The TUI's last line (pure): the keys, the filter being typed, and what part of a long list shows. */
import { describe, expect, it } from 'vitest';
import { keyHelpText } from '../../../src/cli/tui/key-help';
import { INITIAL_VIEW } from '../../../src/cli/tui/view-state';

describe('keyHelpText', () => {
  it('names the keys, and "hide" for Enter while the details are open', () => {
    expect(keyHelpText({ view: INITIAL_VIEW, shown: 4, total: 4, window: null })).toBe('up/down select  Enter why  / filter  q quit');
    expect(keyHelpText({ view: { ...INITIAL_VIEW, detailsOpen: true }, shown: 4, total: 4, window: null })).toContain('Enter hide');
  });

  it('shows the filter being typed, then the one kept with how many rows it keeps', () => {
    expect(keyHelpText({ view: { ...INITIAL_VIEW, editingFilter: true, filter: 'web' }, shown: 1, total: 4, window: null })).toBe(
      'filter: web_  (1 of 4)  Enter keep  Esc clear',
    );
    const kept = keyHelpText({ view: { ...INITIAL_VIEW, filter: '10.213.0.210' }, shown: 1, total: 2, window: null });
    expect(kept).toBe('"10.213.0.210": 1 of 2  Esc clear  up/down select  Enter why  / filter  q quit');
    expect(kept.length).toBeLessThanOrEqual(80);
  });

  it('says which rows of a long list are on screen', () => {
    expect(keyHelpText({ view: INITIAL_VIEW, shown: 40, total: 40, window: { first: 11, last: 19 } })).toBe(
      '11-19 of 40  up/down select  Enter why  / filter  q quit',
    );
  });
});
