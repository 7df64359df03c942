/**
 * A real SMTP server for the mail tests (the `smtp-server` package) on
 * 127.0.0.1 and a free port, keeping every message it receives. Stopped by
 * the test.
 */
import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  from: string
  to: string[]
  raw: string
}

export interface RunningSmtp {
  port: number
  received: ReceivedMail[]
  /** Resolves with the first message (received or to come) matching. */
  waitFor(match: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>
  stop(): Promise<void>
}

export async function startSmtp(options: { username?: string; password?: string } = {}): Promise<RunningSmtp> {
  const received: ReceivedMail[] = []
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS', ...(options.username === undefined ? ['AUTH'] : [])],
    authOptional: options.username === undefined,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === options.username && auth.password === options.password) return callback(null, { user: auth.username })
      callback(new Error('Invalid username or password'))
    },
    onData(stream, session, callback) {
      let raw = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk: string) => (raw += chunk))
      stream.on('end', () => {
        received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((to) => to.address), raw })
        callback()
      })
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const address = server.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    port,
    received,
    async waitFor(match, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = received.find(match)
        if (found !== undefined) return found
        if (Date.now() > deadline) throw new Error(`no matching mail within ${timeoutMs} ms; received ${received.length}`)
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** The decoded text of a raw message's parts (quoted-printable undone), for assertions. */
export function decodedBody(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
}
