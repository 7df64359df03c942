/**
 * A real terminal for tests: a shell (bash, zsh, `svc tinker`) in a tmux
 * session on a tmux server of its own (`tmux -L <unique name>`), so nothing
 * touches anyone else's tmux. Keys go in with `send-keys`; the screen comes
 * back with `capture-pane`. Readiness is always a condition on the screen,
 * polled, never a sleep.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'

export interface Terminal {
  /** Keys as tmux names them (`Tab`, `Enter`, `C-u`) or literal text with `{ literal: true }`. */
  keys(...keys: string[]): void
  /** Literal text (nothing in it is read as a key name). */
  type(text: string): void
  /** The visible screen, trailing blank lines dropped ('' once the program has exited). */
  screen(): string
  /** Waits until `check(screen)` is true; fails with the screen when it does not become true. */
  waitFor(check: (screen: string) => boolean, what: string, timeoutMs?: number): Promise<string>
  /** Ends the tmux server (and the shell in it). */
  close(): void
}

export function tmuxAvailable(): boolean {
  return spawnSync('tmux', ['-V']).status === 0
}

/** Starts `command` (argv) in a fresh tmux server, in a 200x50 window, with `env` added to a minimal environment. */
export function openTerminal(command: string[], env: Record<string, string> = {}): Terminal {
  const server = `svc-test-${randomBytes(6).toString('hex')}`
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', server, ...args], { encoding: 'utf8' })
  const environment = Object.entries({ TERM: 'xterm-256color', HOME: process.env.HOME ?? '/tmp', PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...env })
  // `-f /dev/null`: none of the machine's tmux settings; `env -i`: the shell sees only what the test gives it.
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'test', '-x', '200', '-y', '50', 'env', '-i', ...environment.map(([name, value]) => `${name}=${value}`), ...command)
  // Once the program in it has exited, the session (and its server) is gone: an empty screen.
  const screen = () => {
    const shown = spawnSync('tmux', ['-L', server, 'capture-pane', '-t', 'test', '-p'], { encoding: 'utf8' })
    return shown.status === 0 ? shown.stdout.replace(/\n+$/, '') : ''
  }
  return {
    keys: (...keys) => void tmux('send-keys', '-t', 'test', ...keys),
    type: (text) => void tmux('send-keys', '-t', 'test', '-l', text),
    screen,
    async waitFor(check, what, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const shown = screen()
        if (check(shown)) return shown
        if (Date.now() > deadline) throw new Error(`terminal: ${what} did not show within ${timeoutMs} ms; the screen:\n${shown}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    },
    close: () => {
      spawnSync('tmux', ['-L', server, 'kill-server'])
    },
  }
}
