/**
 * The whole TUI screen as data: from what the feed knows (snapshot, events, explanation), what the operator
 * steered (selection, details, filter) and the terminal's size, every line each component draws, cut to the
 * width and planned to the height. Pure: the Ink components only place and colour it, and the tests check a
 * screen's content and fit without a terminal.
 */
import { detailLines, type DetailLine } from './explain-lines';
import { eventLine, type EventText } from './event-text';
import type { FeedView } from './status-feed';
import {
  conflictLines,
  filterRows,
  headerHeight,
  headerModel,
  memberTable,
  serviceRows,
  serviceTable,
  type FittedTable,
  type HeaderModel,
  type MemberTable,
  type ServiceRow,
} from './status-rows';
import { planScreen, windowStart } from './screen-plan';
import type { TerminalSize } from './use-terminal-size';
import { selectedRow, type ViewState } from './view-state';

export interface Screen {
  readonly width: number;
  readonly header: HeaderModel;
  /** The service rows the filter keeps, and how many there are in all. */
  readonly rows: readonly ServiceRow[];
  readonly totalRows: number;
  readonly table: FittedTable;
  /** Index of the selected row in `rows`, -1 when none. */
  readonly selected: number;
  /** The visible window of rows. */
  readonly start: number;
  readonly count: number;
  /** The open details' lines (already limited to the space they have), null when closed. */
  readonly details: readonly DetailLine[] | null;
  readonly members: MemberTable;
  /** Member lines shown; the block is hidden when the screen has no room for it (null). */
  readonly memberLines: number | null;
  readonly conflicts: readonly string[] | null;
  readonly events: readonly EventText[] | null;
  /** The IP whose explanation the feed should keep current. */
  readonly explainIP: string | null;
}

/** The blank line and the title a section starts with. */
const SECTION_HEAD_LINES = 2;
/** Header's blank line below it, the service table's title, the key line at the bottom. */
const FRAME_LINES = 3;

export function composeScreen(view: FeedView, ui: ViewState, size: TerminalSize): Screen {
  const width = size.columns;
  const all = serviceRows(view.snapshot);
  const rows = filterRows(all, ui.filter);
  const selection = selectedRow(ui, rows);
  const header = headerModel(view.snapshot);
  const members = memberTable(view.snapshot, width);
  const conflicts = conflictLines(view.snapshot, width);
  const details = ui.detailsOpen && selection ? detailLines(selection.row, view.explain, width) : null;
  const plan = planScreen(size.rows, headerHeight(header, view.connected) + FRAME_LINES, {
    services: Math.max(1, rows.length),
    details: details?.length ?? 0,
    conflicts: conflicts.length > 0 ? SECTION_HEAD_LINES + conflicts.length : 0,
    members: SECTION_HEAD_LINES + members.lines.length,
    events: SECTION_HEAD_LINES + Math.max(1, view.events.length),
  });
  const count = Math.min(rows.length, plan.services);
  const shownEvents = plan.events - SECTION_HEAD_LINES;
  return {
    width,
    header,
    rows,
    totalRows: all.length,
    table: serviceTable(rows, width),
    selected: selection?.index ?? -1,
    start: windowStart(rows.length, selection?.index ?? 0, count),
    count,
    details: details ? details.slice(0, plan.details) : null,
    members,
    memberLines: plan.members >= SECTION_HEAD_LINES ? plan.members - SECTION_HEAD_LINES : null,
    conflicts: plan.conflicts >= SECTION_HEAD_LINES ? conflicts.slice(0, plan.conflicts - SECTION_HEAD_LINES) : null,
    events: shownEvents >= 1 ? view.events.slice(-shownEvents).map((e) => eventLine(e, width)) : null,
    explainIP: ui.detailsOpen && selection?.row.ip ? selection.row.ip : null,
  };
}
