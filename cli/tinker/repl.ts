/**
 * `svc tinker`'s REPL (node:repl) over the command's IO.
 *
 * - On a terminal it is Node's own REPL: line editing, completion, history
 *   kept in storage/tinker_history (mode 600).
 * - Piped input (`echo 'await db.all("select * from posts")' | svc tinker`)
 *   is fed one line at a time, each once the previous one is done: Node's
 *   REPL would otherwise start the next line while an `await` of the
 *   previous one is still pending. The REPL ends with the input.
 */
import { chmodSync, existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { createInterface } from 'node:readline'
import { start, type REPLEval, type REPLServer } from 'node:repl'
import { PassThrough, Writable } from 'node:stream'
import type { CommandIO } from '../output/io.ts'
import type { TinkerScope } from './context.ts'
import { rewriteImports } from './imports.ts'

const PROMPT = 'svc> '

export interface TinkerOptions {
  scope: TinkerScope
  /** Where a terminal session keeps its history. */
  historyFile: string
  colors: boolean
}

export async function runRepl(io: CommandIO, options: TinkerOptions): Promise<void> {
  const terminal = io.stdin.isTTY === true && io.stdout.isTTY === true
  const output = writableOf(io)
  const input = terminal ? io.stdin : new PassThrough()
  // On a terminal the prompt shows once the history is loaded, so that Up finds it.
  const server = start({ prompt: terminal ? '' : PROMPT, input, output, terminal, useColors: options.colors, ignoreUndefined: true, preview: terminal })
  Object.assign(server.context, options.scope.values)
  // import('./app/models/post.ts') through jiti, as the CLI loads the app: Node's own loader refuses .ts (imports.ts).
  const evaluate = server.eval
  ;(server as { eval: REPLEval }).eval = function (code, context, file, callback) {
    evaluate.call(this, rewriteImports(code), context, file, callback)
  }
  let closed = false
  const exited = new Promise<void>((resolve) =>
    server.once('exit', () => {
      closed = true
      resolve()
    }),
  )
  const stop = () => server.close()
  io.signal.addEventListener('abort', stop, { once: true })
  try {
    if (terminal) {
      await keepHistory(server, options.historyFile)
      server.setPrompt(PROMPT)
      server.displayPrompt()
    }
    else feedLines(io, server, input as PassThrough, exited, () => closed)
    await exited
  } finally {
    io.signal.removeEventListener('abort', stop)
  }
}

/**
 * Piped input, one line at a time: the next one once the REPL shows its
 * prompt again, which it does when a line is done (its await settled, its
 * error printed, a multi-line statement continued, a command run).
 */
function feedLines(io: CommandIO, server: REPLServer, input: PassThrough, exited: Promise<void>, isClosed: () => boolean): void {
  const displayPrompt = server.displayPrompt
  let prompted: () => void = () => {}
  ;(server as { displayPrompt: REPLServer['displayPrompt'] }).displayPrompt = function (preserveCursor) {
    displayPrompt.call(server, preserveCursor)
    prompted()
  }
  const lines = createInterface({ input: io.stdin, crlfDelay: Infinity })
  void (async () => {
    for await (const line of lines) {
      if (isClosed()) break
      const done = new Promise<void>((resolve) => (prompted = resolve))
      input.write(`${line}\n`)
      await Promise.race([done, exited])
    }
    if (!isClosed()) server.close()
  })()
}

async function keepHistory(server: REPLServer, file: string): Promise<void> {
  mkdirSync(dirname(file), { recursive: true })
  await new Promise<void>((resolve, reject) => server.setupHistory(file, (error) => (error ? reject(error) : resolve())))
  // Node creates it with mode 600; one made before (or by hand) is brought to it too.
  if (existsSync(file)) chmodSync(file, 0o600)
}

/** The REPL writes to a stream: the command's own stdout when it is one, else a stream that copies into it. */
function writableOf(io: CommandIO): NodeJS.WritableStream {
  if (io.stdout instanceof Writable) return io.stdout
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      io.stdout.write(chunk.toString())
      callback()
    },
  })
}
