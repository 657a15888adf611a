/**
 * What the operator steers in the TUI, as a reducer: which service IP is selected, whether its details are open,
 * the filter and whether it is being typed. `(state, key, visible rows) -> state`, pure, so every key's effect is
 * tested without a terminal. The selection follows the IP (its row key), not the line number: when an owner
 * change reorders nothing but a new service appears above, the same IP stays selected.
 */
import type { ServiceRow } from './status-rows';

export interface ViewState {
  /** The selected row's key; null before any row existed. */
  readonly selectedKey: string | null;
  /** Where the selection was: kept when its row disappears (filtered out, service removed), so it lands nearby. */
  readonly selectedIndex: number;
  readonly detailsOpen: boolean;
  readonly filter: string;
  /** "/" was pressed: keys type into the filter until Enter (keep it) or Esc (clear it). */
  readonly editingFilter: boolean;
}

export const INITIAL_VIEW: ViewState = { selectedKey: null, selectedIndex: 0, detailsOpen: false, filter: '', editingFilter: false };

/** The keys the TUI reads, as Ink reports them (a subset of Ink's Key). */
export interface KeyPress {
  readonly input: string;
  readonly upArrow?: boolean;
  readonly downArrow?: boolean;
  readonly pageUp?: boolean;
  readonly pageDown?: boolean;
  readonly return?: boolean;
  readonly escape?: boolean;
  readonly backspace?: boolean;
  readonly delete?: boolean;
  readonly ctrl?: boolean;
  readonly meta?: boolean;
}

export interface KeyResult {
  readonly state: ViewState;
  readonly quit: boolean;
}

/** How far PageUp and PageDown move: a screenful of a small terminal's service table. */
const PAGE_ROWS = 10;
/** Longer than any service name and IP together; typing past it is a stuck key. */
const MAX_FILTER_CHARS = 128;

/** The selected row among the visible ones and its index, or null when none is visible. */
export function selectedRow(state: ViewState, rows: readonly ServiceRow[]): { row: ServiceRow; index: number } | null {
  if (rows.length === 0) return null;
  const byKey = state.selectedKey === null ? -1 : rows.findIndex((r) => r.key === state.selectedKey);
  const index = byKey >= 0 ? byKey : clamp(state.selectedIndex, 0, rows.length - 1);
  return { row: rows[index] as ServiceRow, index };
}

export function pressKey(state: ViewState, key: KeyPress, rows: readonly ServiceRow[]): KeyResult {
  // Text typed faster than it is read (tmux send-keys, a paste) arrives as one input: one key per character.
  const chars = [...key.input];
  const special =
    key.upArrow ||
    key.downArrow ||
    key.pageUp ||
    key.pageDown ||
    key.return ||
    key.escape ||
    key.backspace ||
    key.delete ||
    key.ctrl ||
    key.meta;
  if (chars.length > 1 && !special) {
    return chars.reduce<KeyResult>((done, ch) => (done.quit ? done : pressKey(done.state, keyOf(ch), rows)), { state, quit: false });
  }
  const stay = (next: ViewState): KeyResult => ({ state: next, quit: false });
  const move = (delta: number): KeyResult => {
    const current = selectedRow(state, rows);
    if (!current) return stay(state);
    const index = clamp(current.index + delta, 0, rows.length - 1);
    return stay({ ...state, selectedKey: (rows[index] as ServiceRow).key, selectedIndex: index });
  };
  if (key.upArrow) return move(-1);
  if (key.downArrow) return move(1);
  if (key.pageUp) return move(-PAGE_ROWS);
  if (key.pageDown) return move(PAGE_ROWS);
  if (state.editingFilter) return stay(editFilter(state, key));
  if (key.return) return stay({ ...state, detailsOpen: !state.detailsOpen });
  if (key.escape) return stay(state.detailsOpen ? { ...state, detailsOpen: false } : { ...state, filter: '' });
  if (key.ctrl || key.meta) return stay(state);
  switch (key.input) {
    case 'q':
      return { state, quit: true };
    case '/':
      return stay({ ...state, editingFilter: true });
    case 'k':
      return move(-1);
    case 'j':
      return move(1);
    default:
      return stay(state);
  }
}

function editFilter(state: ViewState, key: KeyPress): ViewState {
  if (key.return) return { ...state, editingFilter: false };
  if (key.escape) return { ...state, editingFilter: false, filter: '' };
  if (key.backspace || key.delete) return { ...state, filter: state.filter.slice(0, -1) };
  if (key.ctrl && key.input === 'u') return { ...state, filter: '' };
  if (key.ctrl || key.meta) return state;
  // Only printable text: a paste of several characters is fine, a control sequence is not.
  const text = [...key.input].filter((ch) => ch >= ' ' && ch !== '\x7f').join('');
  return { ...state, filter: `${state.filter}${text}`.slice(0, MAX_FILTER_CHARS) };
}

/** One character of a burst as the key that types it: Enter and Backspace arrive inside bursts too. */
function keyOf(ch: string): KeyPress {
  if (ch === '\r' || ch === '\n') return { input: ch, return: true };
  if (ch === '\x7f' || ch === '\b') return { input: '', backspace: true };
  return { input: ch };
}

function clamp(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, n));
}
