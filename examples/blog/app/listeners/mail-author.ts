/**
 * Mails the author of a new post, from a queue worker (`queued: true`): creating a post
 * does not wait for the mail server. `npm run svc -- queue:work --stop-when-empty` sends it.
 * A post that is public when the mail is sent is "live", with its link; a draft or a post
 * scheduled for later is "saved", with the link to the author's drafts (its own answers 404).
 */
import { defineListener, resolveAuthSettings } from 'svc'
import { PostCreated } from '../events/post-created.ts'
import { PUBLISHED } from '../controllers/posts.ts'
import { draftSavedMail } from '../mail/draft-saved.ts'
import { postPublishedMail } from '../mail/post-published.ts'

export default defineListener(PostCreated, {
  name: 'mail-author',
  queued: true,
  async handle(event, { db, mailer, config }) {
    const post = await db.first<{ title: string; slug: string; published_at: string | null; live: number }>(
      `select title, slug, published_at, ${PUBLISHED} as live from posts where id = ?`,
      [event.postId],
    )
    const author = await db.first<{ name: string; email: string }>('select name, email from users where id = ?', [event.authorId])
    // Deleted since: nothing to tell. (Delivery is at least once: a rerun mails once more, which is harmless here.)
    if (post === undefined || author === undefined) return
    // APP_URL (svc serve sets it to where it listens when .env leaves it empty), else http://HOST:PORT: where the links of auth's mails point too.
    const { appUrl } = resolveAuthSettings(config)
    if (post.live) {
      await mailer.send(postPublishedMail.to(author.email, { name: author.name, title: post.title, url: `${appUrl}/api/v1/posts/${post.slug}` }))
    } else {
      await mailer.send(draftSavedMail.to(author.email, { name: author.name, title: post.title, url: `${appUrl}/api/v1/posts/drafts`, goesLiveAt: post.published_at }))
    }
  },
})
