/**
 * Where `mlb status` gets its live view from: dist/mlb-tui.mjs beside dist/mlb.mjs (scripts/build.mjs turns the
 * import below into that file), or, in the one-file build (dist/mlb), the same file embedded in the executable.
 */
import { importEmbeddedModule } from '../../packaging/embedded-module';
import { EMBEDDED, runningAsSingleExecutable } from '../../packaging/single-executable';

type StatusTuiModule = typeof import('../tui/run-status-tui');

export function importStatusTui(): Promise<StatusTuiModule> {
  return runningAsSingleExecutable() ? importEmbeddedModule<StatusTuiModule>(EMBEDDED.statusTui) : import('../tui/run-status-tui');
}
