/**
 * Mail settings read from the app's environment (`config.vars`). Every one
 * has a default; a bad value is a ConfigError naming the variable.
 */
import { ConfigError, type AppConfig } from '../config/config.ts'
import { bool, int, oneOf, text } from '../config/env-readers.ts'
import { headerControl } from './header-check.ts'

export interface MailSettings {
  /** `MAIL_MAILER`: `log` (default: storage/logs/mail.log), `smtp` or `console`. */
  mailer: 'log' | 'smtp' | 'console'
  /** `MAIL_FROM`: the sender; default `svc <no-reply@localhost>`. */
  from: string
  /** `MAIL_QUEUE`: send every mail through the queue (the `svc.send-mail` job); default false. */
  queue: boolean
  smtp: {
    /** `MAIL_HOST` (required with `smtp`). */
    host: string | undefined
    /** `MAIL_PORT`, default 587. */
    port: number
    /** `MAIL_USERNAME` / `MAIL_PASSWORD`: both or neither. */
    username: string | undefined
    password: string | undefined
    /** `MAIL_ENCRYPTION`: `tls`, `starttls` or `none`; default `tls` on 465, else `starttls`. */
    encryption: 'tls' | 'starttls' | 'none' | undefined
  }
}

export function resolveMailSettings(config: AppConfig): MailSettings {
  const vars = config.vars
  const mailer = oneOf(vars, 'MAIL_MAILER', ['log', 'smtp', 'console'] as const, 'log')
  const host = text(vars, 'MAIL_HOST')
  if (mailer === 'smtp' && host === undefined) throw new ConfigError('MAIL_HOST', 'is required when MAIL_MAILER=smtp')
  const username = text(vars, 'MAIL_USERNAME')
  const password = vars.MAIL_PASSWORD
  if (username !== undefined && (password === undefined || password === '')) throw new ConfigError('MAIL_PASSWORD', 'is required when MAIL_USERNAME is set')
  const encryption = text(vars, 'MAIL_ENCRYPTION') === undefined ? undefined : oneOf(vars, 'MAIL_ENCRYPTION', ['tls', 'starttls', 'none'] as const, 'starttls')
  const from = text(vars, 'MAIL_FROM') ?? 'svc <no-reply@localhost>'
  // Checked here, not at each send: every mail would be refused (`"..."` in .env turns \n into a line break).
  const control = headerControl(from)
  if (control !== undefined) throw new ConfigError('MAIL_FROM', `holds a line break or another control character (${control}): a sender is one line, such as App <no-reply@example.com>`)
  return {
    mailer,
    from,
    queue: bool(vars, 'MAIL_QUEUE', false),
    smtp: { host, port: int(vars, 'MAIL_PORT', 587, 1, 65535), username, password: username === undefined ? undefined : password, encryption },
  }
}
