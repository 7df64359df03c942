/**
 * Tells the author their new post is not public yet (a draft, or scheduled): `draftSavedMail.to(author.email, { ... })`.
 * The "is live" mail would link to a post that answers 404 to everyone until it is published.
 */
import { defineMail, html } from 'svc'

export interface DraftSavedMailData {
  name: string
  title: string
  /** Where the author finds it: GET /api/v1/posts/drafts (with their token). */
  url: string
  /** When it goes live (a published_at to come), or null for a draft without one. */
  goesLiveAt: string | null
}

function when({ goesLiveAt }: DraftSavedMailData): string {
  return goesLiveAt === null ? 'until you give it a published_at' : `until ${goesLiveAt}, when it goes live`
}

export const draftSavedMail = defineMail<DraftSavedMailData>({
  subject: ({ title, goesLiveAt }) => (goesLiveAt === null ? `Your draft "${title}" is saved` : `Your post "${title}" is scheduled`),
  text: (data) => `Hello ${data.name},\n\nyour post "${data.title}" is saved; only you and the admins see it, ${when(data)}:\n${data.url}\n\nThanks for writing!`,
  html: (data) => html`<p>Hello ${data.name},</p>
<p>your post "${data.title}" is saved; only you and the admins see it, ${when(data)}, in <a href="${data.url}">your drafts</a>.</p>
<p>Thanks for writing!</p>`,
})
