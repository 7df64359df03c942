import { appPaths } from '../paths.ts'
import { defineTemplate } from '../template.ts'

export type MailOptions = Record<string, never>

declare module '../template.ts' {
  interface TemplateOptions {
    mail: MailOptions
  }
}

/** `app/mail/<name>.ts`: a mail rendered to text and HTML (`defineMail`), sent with `c.mailer`. */
export default defineTemplate('mail', ({ names }) => {
  const data = `${names.base.pascal}MailData`
  const mail = `${names.base.camel}Mail`
  return {
    path: appPaths.mail(names),
    contents: `/**
 * The ${names.base.words} mail: \`await c.mailer.send(${mail}.to(user.email, { name: user.name }))\`.
 * MAIL_MAILER picks the driver (log: storage/logs/mail.log; smtp); MAIL_QUEUE=true sends through the queue.
 */
import { defineMail, html } from 'svc'

export interface ${data} {
  name: string
}

export const ${mail} = defineMail<${data}>({
  subject: () => '${names.base.words.charAt(0).toUpperCase()}${names.base.words.slice(1)}',
  text: ({ name }) => \`Hello \${name},\\n\\n...\`,
  // Values in html\`\` are escaped.
  html: ({ name }) => html\`<p>Hello \${name},</p>
<p>...</p>\`,
})
`,
  }
})
