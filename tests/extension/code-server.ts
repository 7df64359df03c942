/**
 * code-server (a full VS Code build, from npm) for the extension's end-to-end
 * test: where the machine's install is (extension/scripts/install-code-server.sh
 * puts it in ~/.cache/svc/code-server), how to install a .vsix into a
 * throw-away profile, and how to start and stop it on a free loopback port.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'

export interface CodeServerInstall {
  /** The code-server launcher. */
  bin: string
  /** Node 24's folder (bin/node), put first on PATH to run code-server. */
  nodeHome: string
}

export function codeServerDir(): string {
  return process.env.SVC_CODE_SERVER_DIR ?? join(homedir(), '.cache', 'svc', 'code-server')
}

/** The install, or null when the install script has not run on this machine. */
export function findCodeServer(): CodeServerInstall | null {
  const envFile = join(codeServerDir(), 'env.sh')
  if (!existsSync(envFile)) return null
  const text = readFileSync(envFile, 'utf8')
  const value = (name: string) => new RegExp(`^${name}="([^"]*)"`, 'm').exec(text)?.[1]
  const bin = value('CODE_SERVER')
  const nodeHome = value('NODE24_HOME')
  if (!bin || !nodeHome || !existsSync(bin) || !existsSync(join(nodeHome, 'bin', 'node'))) return null
  return { bin, nodeHome }
}

export interface CodeServerProfile {
  root: string
  userDataDir: string
  extensionsDir: string
  env: NodeJS.ProcessEnv
  remove(): void
}

/** A throw-away profile: user data, extensions, XDG config/data folders, user settings. */
export function createProfile(install: CodeServerInstall, userSettings: Record<string, unknown>): CodeServerProfile {
  const root = mkdtempSync(join(tmpdir(), 'svc-code-server-'))
  const userDataDir = join(root, 'user-data')
  const extensionsDir = join(root, 'extensions')
  for (const dir of [userDataDir, extensionsDir, join(root, 'xdg-config'), join(root, 'xdg-data'), join(userDataDir, 'User')]) mkdirSync(dir, { recursive: true })
  writeFileSync(join(userDataDir, 'User', 'settings.json'), `${JSON.stringify(userSettings, null, 2)}\n`)
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${join(install.nodeHome, 'bin')}:${process.env.PATH ?? ''}`,
    XDG_CONFIG_HOME: join(root, 'xdg-config'),
    XDG_DATA_HOME: join(root, 'xdg-data'),
    // Nothing of the developer's shell session leaks into the editor.
    VSCODE_IPC_HOOK_CLI: '',
    NODE_OPTIONS: '',
  }
  return { root, userDataDir, extensionsDir, env, remove: () => rmSync(root, { recursive: true, force: true }) }
}

export function installExtension(install: CodeServerInstall, profile: CodeServerProfile, vsix: string): string {
  const result = spawnSync(install.bin, ['--user-data-dir', profile.userDataDir, '--extensions-dir', profile.extensionsDir, '--install-extension', vsix], {
    env: profile.env,
    encoding: 'utf8',
    timeout: 120_000,
  })
  if (result.status !== 0) throw new Error(`code-server --install-extension failed (${result.status}): ${result.stdout}\n${result.stderr}`)
  return result.stdout
}

export interface RunningCodeServer {
  url: string
  process: ChildProcess
  log(): string
  stop(): Promise<void>
}

/** Starts code-server on 127.0.0.1 (port chosen by the OS) and resolves with its URL. */
export function startCodeServer(install: CodeServerInstall, profile: CodeServerProfile, folder: string): Promise<RunningCodeServer> {
  const args = [
    '--auth', 'none',
    '--bind-addr', '127.0.0.1:0',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--reconnection-grace-time', '5',
    '--user-data-dir', profile.userDataDir,
    '--extensions-dir', profile.extensionsDir,
    folder,
  ]
  // Its own process group, so that stopping it stops the extension host and the language server too.
  const child = spawn(install.bin, args, { env: profile.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk))
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const closed = new Promise((resolve) => child.once('close', resolve))
    try {
      process.kill(-child.pid!, 'SIGTERM')
    } catch {
      child.kill('SIGTERM')
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // already gone
      }
    }, 10_000)
    await closed
    clearTimeout(timer)
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop()
      reject(new Error(`code-server did not start within 90 s:\n${log}`))
    }, 90_000)
    const onData = () => {
      const match = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(log)
      if (!match) return
      clearTimeout(timer)
      child.stdout!.off('data', onData)
      resolve({ url: match[1]!, process: child, log: () => log, stop })
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`code-server exited (${code}) before listening:\n${log}`))
    })
  })
}
