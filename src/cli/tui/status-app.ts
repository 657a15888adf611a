/**
 * The `mlb status` TUI's root component: owns the feed (the daemon's snapshot, events and the selected IP's
 * explanation) and the operator's view state, and lays out the header, service IPs, details, members, conflicts,
 * recent events and the key line. All content comes from composeScreen (pure); this file wires keys and effects.
 */
import { createElement as h, useEffect, useRef, useState, type ReactElement } from 'react';
import { Box, Text, useApp, useInput } from 'ink';
import type { ControlSnapshot } from '../../daemon/control/control-snapshot';
import { ConflictsList } from './conflicts-list';
import { EventsList } from './events-list';
import { KeyHelp } from './key-help';
import { MembersTable } from './members-table';
import { ServiceDetails } from './service-details';
import { ServicesTable } from './services-table';
import { StatusFeed, type FeedTiming, type FeedView, type StatusFeedClient } from './status-feed';
import { StatusHeader } from './status-header';
import { filterRows, serviceRows } from './status-rows';
import { composeScreen } from './status-screen';
import { useTerminalSize } from './use-terminal-size';
import { INITIAL_VIEW, pressKey, type ViewState } from './view-state';

export interface StatusAppProps {
  readonly client: StatusFeedClient;
  /** The snapshot read before the TUI opened (a daemon that cannot be read at all fails the command instead). */
  readonly initial: ControlSnapshot;
  readonly timing?: FeedTiming;
}

export function StatusApp({ client, initial, timing }: StatusAppProps): ReactElement {
  const { exit } = useApp();
  const size = useTerminalSize();
  const [view, setView] = useState<FeedView>(() => ({ snapshot: initial, events: [], connected: true, problem: null, explain: null }));
  const [ui, setUi] = useState<ViewState>(INITIAL_VIEW);
  const feed = useRef<StatusFeed | null>(null);
  // Keys can arrive faster than React redraws: each one is applied to the latest state, not the last drawn one.
  const latest = useRef({ ui, snapshot: view.snapshot });
  latest.current.snapshot = view.snapshot;

  useEffect(() => {
    const started = new StatusFeed(client, initial, setView, timing);
    feed.current = started;
    started.start();
    return () => started.stop();
  }, [client]);

  useInput((input, key) => {
    const rows = filterRows(serviceRows(latest.current.snapshot), latest.current.ui.filter);
    const result = pressKey(latest.current.ui, { ...key, input }, rows);
    latest.current.ui = result.state;
    setUi(result.state);
    if (result.quit) exit();
  });

  const screen = composeScreen(view, ui, size);
  useEffect(() => feed.current?.watchExplain(screen.explainIP), [screen.explainIP]);

  const blank = (key: string) => h(Text, { key }, ' ');
  const window = screen.count < screen.rows.length ? { first: screen.start + 1, last: screen.start + screen.count } : null;
  return h(
    Box,
    { flexDirection: 'column', width: screen.width },
    h(StatusHeader, { model: screen.header, connected: view.connected, problem: view.problem, width: screen.width }),
    blank('after-header'),
    h(ServicesTable, {
      table: screen.table,
      rows: screen.rows,
      selected: screen.selected,
      start: screen.start,
      count: screen.count,
      empty: screen.totalRows === 0 ? 'no service has an IP to announce' : `no service IP matches "${ui.filter}"`,
    }),
    screen.details ? h(ServiceDetails, { lines: screen.details }) : null,
    screen.conflicts
      ? [blank('before-conflicts'), h(ConflictsList, { key: 'conflicts', lines: screen.conflicts, width: screen.width })]
      : null,
    screen.memberLines !== null
      ? [blank('before-members'), h(MembersTable, { key: 'members', table: screen.members, count: screen.memberLines })]
      : null,
    screen.events ? [blank('before-events'), h(EventsList, { key: 'events', lines: screen.events })] : null,
    h(KeyHelp, { view: ui, shown: screen.rows.length, total: screen.totalRows, window, width: screen.width }),
  );
}
