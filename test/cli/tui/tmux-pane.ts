/**
 * A real terminal for end-to-end tests of the TUI: one command in a detached tmux session of a given size, on a
 * private tmux server (its own socket), with keys sent and the screen captured as a person would see it. The pane
 * stays after its command exits, and its exit status is kept, so a test can read how it exited.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether tmux can run here; under CI=true a missing tmux is a broken setup (.ci/run installs it), not a skip. */
export function tmuxAvailable(): { ok: true } | { ok: false; why: string } {
  const run = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  if (run.status === 0) return { ok: true };
  if (process.env.CI === 'true') throw new Error('tmux is missing but CI=true: .ci/run installs it (apt-get install tmux)');
  return { ok: false, why: 'tmux is not installed (apt-get install tmux)' };
}

export interface PaneOptions {
  readonly columns: number;
  readonly rows: number;
  readonly cwd?: string;
}

export class TmuxPane {
  private readonly dir = mkdtempSync(join(tmpdir(), 'mlb-tmux-'));
  /** The private server's socket, inside the pane's directory: removed with it. */
  private readonly server = join(this.dir, 'tmux.sock');
  private readonly target = 'mlb';
  private readonly statusFile = join(this.dir, 'exit-status');

  /** Starts `command` (argv) in the pane; CI variables are dropped, or Ink would draw only its last frame. */
  constructor(command: readonly string[], options: PaneOptions) {
    const conf = join(this.dir, 'tmux.conf');
    writeFileSync(conf, 'set -g remain-on-exit on\nset -g status off\nset -g history-limit 0\n');
    // The exit status goes to a file: tmux 3.3's #{pane_dead_status} stays empty for a command run by its shell.
    const run = ['env', '-u', 'CI', '-u', 'CONTINUOUS_INTEGRATION', 'TERM=xterm-256color', ...command].map(quote).join(' ');
    const shell = `${run}; echo $? > ${quote(this.statusFile)}`;
    this.tmux([
      '-f',
      conf,
      'new-session',
      '-d',
      '-s',
      this.target,
      '-x',
      String(options.columns),
      '-y',
      String(options.rows),
      ...(options.cwd ? ['-c', options.cwd] : []),
      shell,
    ]);
  }

  /** The screen as text, wrapped lines joined (-J), so a line the program wrote too long shows as too long. */
  capture(options: { colours?: boolean } = {}): string {
    return this.tmux(['capture-pane', '-p', '-J', ...(options.colours ? ['-e'] : []), '-t', this.target]);
  }

  /** tmux key names (Down, Enter, Escape) or literal text. */
  send(...keys: string[]): void {
    this.tmux(['send-keys', '-t', this.target, ...keys]);
  }

  /** Text typed as is (no key-name lookup: "q" is q, "Enter" is E n t e r). */
  type(text: string): void {
    this.tmux(['send-keys', '-l', '-t', this.target, text]);
  }

  /** null while the command runs, its exit status once it ended. */
  exitStatus(): number | null {
    if (!existsSync(this.statusFile)) return null;
    const text = readFileSync(this.statusFile, 'utf8').trim();
    return text === '' ? null : Number(text);
  }

  destroy(): void {
    spawnSync('tmux', ['-S', this.server, 'kill-server'], { stdio: 'ignore' });
    rmSync(this.dir, { recursive: true, force: true });
  }

  private tmux(args: string[]): string {
    const run = spawnSync('tmux', ['-S', this.server, ...args], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${run.stderr}`);
    return run.stdout;
  }
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Polls the pane until `check` finds what it waits for (returns it), or fails with the last screen. */
export async function waitForScreen<T>(pane: TmuxPane, check: (screen: string) => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const screen = pane.capture();
    const found = check(screen);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`the screen did not show it within ${timeoutMs} ms; it shows:\n${screen}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Foreground colours by SGR code, as far as the TUI uses them (tmux repeats them in capture-pane -e). */
const SGR_FOREGROUND: Record<number, string> = {
  30: 'black',
  31: 'red',
  32: 'green',
  33: 'yellow',
  34: 'blue',
  35: 'magenta',
  36: 'cyan',
  37: 'white',
  90: 'gray',
};

/**
 * The foreground colour in effect where `needle` first appears in a screen captured with colours (-e): tmux
 * writes only the changes of attributes, so the colour is followed through every escape before it.
 */
export function foregroundAt(ansi: string, needle: string): string | undefined {
  const at = ansi.indexOf(needle);
  if (at < 0) return undefined;
  let colour = 'default';
  for (const m of ansi.slice(0, at).matchAll(/\x1b\[([\d;]*)m/g)) {
    const codes = (m[1] === '' ? '0' : m[1]!).split(';').map(Number);
    for (let i = 0; i < codes.length; i++) {
      const code = codes[i]!;
      if (code === 0 || code === 39) colour = 'default';
      else if (SGR_FOREGROUND[code]) colour = SGR_FOREGROUND[code];
      else if (code === 38) i += codes[i + 1] === 5 ? 2 : 4; // 256-colour or RGB: not used by the TUI
    }
  }
  return colour;
}
