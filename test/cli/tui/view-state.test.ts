/** The TUI's keys (pure): selection, details, filter and quit, as an operator presses them. */
import { describe, expect, it } from 'vitest';
import { filterRows, serviceRows } from '../../../src/cli/tui/status-rows';
import { INITIAL_VIEW, pressKey, selectedRow, type KeyPress, type ViewState } from '../../../src/cli/tui/view-state';
import { exampleSnapshot } from '../../daemon/control/fake-daemon';

const rows = serviceRows(exampleSnapshot());
const press = (state: ViewState, ...keys: (KeyPress | string)[]) =>
  keys.reduce((s, k) => pressKey(s, typeof k === 'string' ? { input: k } : k, filterRows(rows, s.filter)).state, state);
const down: KeyPress = { input: '', downArrow: true };
const up: KeyPress = { input: '', upArrow: true };
const enter: KeyPress = { input: '\r', return: true };
const esc: KeyPress = { input: '', escape: true };
const backspace: KeyPress = { input: '', backspace: true };

describe('selection', () => {
  it('starts on the first row, moves with the arrows (and j/k), and stops at the ends', () => {
    expect(selectedRow(INITIAL_VIEW, rows)?.index).toBe(0);
    expect(selectedRow(press(INITIAL_VIEW, down, down), rows)?.row.ip).toBe('192.168.10.201');
    expect(selectedRow(press(INITIAL_VIEW, up), rows)?.index).toBe(0);
    expect(selectedRow(press(INITIAL_VIEW, down, down, down, down, down), rows)?.index).toBe(3);
    expect(selectedRow(press(INITIAL_VIEW, 'j', 'j', 'k'), rows)?.index).toBe(1);
  });

  it('stays on the same IP when rows move, and lands nearby when its row goes', () => {
    const state = press(INITIAL_VIEW, down, down);
    const reordered = [rows[3]!, rows[2]!, rows[0]!, rows[1]!];
    expect(selectedRow(state, reordered)?.row.ip).toBe('192.168.10.201');
    expect(selectedRow(state, [rows[0]!, rows[1]!, rows[3]!])?.row.service).toBe('demo/nobody');
    expect(selectedRow(state, [])).toBeNull();
  });
});

describe('details, filter and quit', () => {
  it('Enter toggles the details, Esc closes them', () => {
    expect(press(INITIAL_VIEW, enter).detailsOpen).toBe(true);
    expect(press(INITIAL_VIEW, enter, enter).detailsOpen).toBe(false);
    expect(press(INITIAL_VIEW, enter, esc).detailsOpen).toBe(false);
  });

  it('/ types a filter until Enter keeps it or Esc clears it; keys typed there are text', () => {
    const typing = press(INITIAL_VIEW, '/', 'w', 'e', 'x', backspace, 'b');
    expect(typing).toMatchObject({ editingFilter: true, filter: 'web' });
    expect(pressKey(typing, { input: 'q' }, rows).quit).toBe(false);
    expect(press(typing, enter)).toMatchObject({ editingFilter: false, filter: 'web', detailsOpen: false });
    expect(press(typing, esc)).toMatchObject({ editingFilter: false, filter: '' });
    expect(press(typing, enter, esc).filter).toBe('');
  });

  it('takes text typed in one burst (a paste, tmux send-keys) key by key', () => {
    expect(press(INITIAL_VIEW, '/web')).toMatchObject({ editingFilter: true, filter: 'web' });
    expect(pressKey(INITIAL_VIEW, { input: 'jq' }, rows)).toMatchObject({ quit: true, state: { selectedIndex: 1 } });
    expect(press(INITIAL_VIEW, '/webx\x7f\r')).toMatchObject({ editingFilter: false, filter: 'web' });
    expect(press(INITIAL_VIEW, '/web\r\r')).toMatchObject({ editingFilter: false, filter: 'web', detailsOpen: true });
  });

  it('q quits; Ctrl-q and other keys do nothing', () => {
    expect(pressKey(INITIAL_VIEW, { input: 'q' }, rows).quit).toBe(true);
    expect(pressKey(INITIAL_VIEW, { input: 'q', ctrl: true }, rows)).toEqual({ state: INITIAL_VIEW, quit: false });
    expect(pressKey(INITIAL_VIEW, { input: 'x' }, rows)).toEqual({ state: INITIAL_VIEW, quit: false });
  });
});
