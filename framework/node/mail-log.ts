/** The default mail driver on Node: appends every message to a log file (`storage/logs/mail.log`). */
import { appendFile, mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { formatMail, mailHeaderValue, type Mailer } from '../mail/index.ts'

/**
 * `from`: the sender a message without its own shows (`MAIL_FROM`), as a real mailer would send it.
 * A send that could not write the log rejects, naming the file and what is in the way: the mail is
 * kept nowhere else, so the caller (or the queue, which retries `svc.send-mail`) must know.
 * @example const mailer = logMailer(join(storageDir, 'logs', 'mail.log'), { from: 'Blog <no-reply@blog.test>' })
 */
export function logMailer(path: string, options: { from?: string } = {}): Mailer {
  return {
    name: 'log',
    async send(message) {
      try {
        await appendCreatingFolder(path, `${formatMail(message, new Date(), options.from)}\n`)
      } catch (error) {
        throw new Error(`Mail to ${mailHeaderValue(message.to)} not sent: the mail log ${path} cannot be written (${reason(error, path)})`, { cause: error })
      }
    },
  }
}

/**
 * The folder is made when it is missing at this send, not once for the
 * process: a folder removed or repaired while the app runs is found again.
 */
async function appendCreatingFolder(path: string, text: string): Promise<void> {
  try {
    await appendFile(path, text, { mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    await mkdir(dirname(path), { recursive: true })
    await appendFile(path, text, { mode: 0o600 })
  }
}

/** What is wrong, in words, with Node's own message beside them (its code names the system call, not the fix). */
function reason(error: unknown, path: string): string {
  const { code, message } = error as NodeJS.ErrnoException
  switch (code) {
    case 'EEXIST':
    case 'ENOTDIR':
      return `a file is in the way of the folder ${dirname(path)}: ${message}`
    case 'EISDIR':
      return `it is a folder: ${message}`
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return `not writable: ${message}`
    default:
      return message
  }
}
