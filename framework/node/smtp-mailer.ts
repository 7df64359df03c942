/**
 * The `smtp` mail driver (Node only): nodemailer's SMTP transport, one pooled
 * connection reused between messages.
 *
 * @example
 * const mailer = smtpMailer({ host: 'smtp.example.com', port: 587, username, password, from: 'App <no-reply@example.com>' })
 */
import { createTransport, type Transporter } from 'nodemailer'
import { assertSendableHeaders, type Mailer } from '../mail/index.ts'

export interface SmtpMailerOptions {
  host: string
  port: number
  username?: string
  password?: string
  /**
   * `tls`: TLS from the first byte (port 465); `starttls`: plain, then
   * STARTTLS, required (port 587); `none`: no TLS (a local relay or test
   * server). Default: `tls` on 465, else `starttls`.
   */
  encryption?: 'tls' | 'starttls' | 'none'
  /** The sender of messages that do not name one. */
  from: string
  /** Seconds to wait for the server at each step; default 30. */
  timeoutSeconds?: number
}

export interface SmtpMailer extends Mailer {
  /** Closes the pooled connection once the messages being sent are sent. */
  close(): Promise<void>
}

export function smtpMailer(options: SmtpMailerOptions): SmtpMailer {
  const encryption = options.encryption ?? (options.port === 465 ? 'tls' : 'starttls')
  const timeout = (options.timeoutSeconds ?? 30) * 1000
  const transport: Transporter = createTransport({
    pool: true,
    maxConnections: 1,
    host: options.host,
    port: options.port,
    secure: encryption === 'tls',
    requireTLS: encryption === 'starttls',
    ignoreTLS: encryption === 'none',
    auth: options.username === undefined ? undefined : { user: options.username, pass: options.password ?? '' },
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  })
  // Mails sent after an answer (auth's) may still be on their way when the app closes.
  const sending = new Set<Promise<unknown>>()
  return {
    name: 'smtp',
    async send(message) {
      const from = message.from ?? options.from
      assertSendableHeaders(message, from)
      const sent = transport.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.html === undefined ? {} : { html: message.html }),
      })
      sending.add(sent)
      try {
        await sent
      } finally {
        sending.delete(sent)
      }
    },
    async close() {
      await Promise.allSettled([...sending])
      transport.close()
    },
  }
}
