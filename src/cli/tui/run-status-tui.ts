/**
 * The entry `mlb status` imports lazily (import('./tui/run-status-tui')) when stdout is a terminal: Ink, React and
 * yoga's WebAssembly load only here, so `mlb --help`, `mlb version` and `--once` start without them.
 */
import { createElement as h } from 'react';
import { render } from 'ink';
import type { ControlSnapshot } from '../../daemon/control/control-snapshot';
import { StatusApp } from './status-app';
import type { StatusFeedClient } from './status-feed';

/** Runs the TUI until the operator presses q (or Ctrl-C); the feed's sockets and timers are closed on the way out. */
export async function runStatusTui(client: StatusFeedClient, initial: ControlSnapshot): Promise<void> {
  const app = render(h(StatusApp, { client, initial }), { exitOnCtrlC: true, patchConsole: false });
  await app.waitUntilExit();
}
