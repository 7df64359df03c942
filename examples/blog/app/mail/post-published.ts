/** Tells the author their post is live: `postPublishedMail.to(author.email, { ... })`. */
import { defineMail, html } from 'svc'

export interface PostPublishedMailData {
  name: string
  title: string
  url: string
}

export const postPublishedMail = defineMail<PostPublishedMailData>({
  subject: ({ title }) => `Your post "${title}" is live`,
  text: ({ name, title, url }) => `Hello ${name},\n\nyour post "${title}" is live:\n${url}\n\nThanks for writing!`,
  html: ({ name, title, url }) => html`<p>Hello ${name},</p>
<p>your post <a href="${url}">${title}</a> is live.</p>
<p>Thanks for writing!</p>`,
})
