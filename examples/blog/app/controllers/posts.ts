/**
 * The posts resource: list, show (by id or slug), archive, drafts, create, update, delete.
 * Everyone reads the published posts; a draft (no `published_at`, or one still in the future) is seen only by its
 * author and admins, in `GET /posts/drafts` (docs/authentication.md, "Drafts").
 * The schemas below are declared on the routes (routes/api.ts): `.body(PostInput)`
 * validates a request before its handler runs, and types `await c.body()`.
 */
import * as v from 'valibot'
import { emit, HttpError, logUnexpectedError, paginationQuery, ServiceBusyError, utcTimestamp, visibleText, withoutNul, type Context } from 'svc'
import { PostCreated } from '../events/post-created.ts'

/** A stored post, as the API returns it (declared with `.response(Post)`, for the API description). */
export const Post = v.object({
  id: v.number(),
  title: v.string(),
  slug: v.string(),
  body: v.string(),
  published_at: v.nullable(v.string()),
  // Who wrote it (from their token, never from the body); null for posts older than authorship (the seeded ones).
  user_id: v.nullable(v.number()),
  created_at: v.string(),
  updated_at: v.string(),
})
export type Post = v.InferOutput<typeof Post>

/** A list of posts (v1's list and the archive). */
export const PostList = v.array(Post)

/** v2's list: the posts of one page, and where that page is. */
export const PostPage = v.object({
  posts: PostList,
  meta: v.object({ page: v.number(), per_page: v.number(), total: v.number(), pages: v.number() }),
})

/** What deleting answers: the id the post had. */
export const DeletedPost = v.object({ id: v.number() })

/**
 * What a client sends to create or update a post. It has no author field: the author is the user of the token,
 * and a `user_id` in the body is dropped with the other keys the schema does not name (docs/authentication.md). Messages come from svc ("The title field is required.").
 * A title is one line of visible text (a NUL, a line break or a bidirectional override is a 422 naming the
 * field), a body may run over lines but holds no NUL (libSQL would read it back cut there; without the rule,
 * the database's guard refused it with a 422 that named no field and spoke to the developer).
 */
export const PostInput = v.object({
  title: v.pipe(v.string(), v.trim(), v.nonEmpty(), visibleText(), v.maxLength(200)),
  body: v.optional(v.pipe(v.string(), withoutNul(), v.maxLength(100_000)), ''),
  // Stored in UTC (utcTimestamp): the archive sorts and groups by the text, which mixed offsets put out of time order.
  published_at: v.optional(v.nullable(utcTimestamp())),
})

/** `?page` and `?per_page` of the lists (20 a page by default, at most 100): anything else is a 422. */
export const ListQuery = paginationQuery({ perPage: 20 })

/**
 * The `where` of a post everyone may read: published, and not scheduled for later (`published_at` is stored as
 * `toISOString()` spells it, the spelling of this `strftime`, so the texts compare in time order). The mail to the
 * author reads it too (app/listeners/mail-author.ts): a draft's is not "live".
 */
export const PUBLISHED = "(published_at is not null and published_at <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"

export async function listPosts(c: Context<'/posts', { query: typeof ListQuery }>): Promise<Post[]> {
  const { limit, offset } = c.query
  return c.db.all<Post>(`select * from posts where ${PUBLISHED} order by id desc limit ? offset ?`, [limit, offset])
}

/** v2 adds pagination metadata around the same list. */
export async function listPostsWithMeta(c: Context<'/', { query: typeof ListQuery }>) {
  const { page, perPage, limit, offset } = c.query
  const [rows, count] = await c.db.batch([
    { sql: `select * from posts where ${PUBLISHED} order by id desc limit ? offset ?`, args: [limit, offset] },
    `select count(*) as total from posts where ${PUBLISHED}`,
  ])
  const total = Number(count!.rows[0]!.total)
  return { posts: rows!.rows as unknown as Post[], meta: { page, per_page: perPage, total, pages: Math.ceil(total / perPage) } }
}

export async function showPost(c: Context<'/posts/{id}'>): Promise<Post> {
  return findPost(c, 'id', Number(c.params.id))
}

export async function showPostBySlug(c: Context<'/posts/{slug}'>): Promise<Post> {
  return findPost(c, 'slug', c.params.slug)
}

/** `/posts/archive/{year?}`: every published post, or those of one year. */
export async function archive(c: Context<'/posts/archive/{year?}'>): Promise<Post[]> {
  const year = c.params.year
  return year === undefined
    ? c.db.all<Post>(`select * from posts where ${PUBLISHED} order by published_at desc`)
    : c.db.all<Post>(`select * from posts where ${PUBLISHED} and strftime('%Y', published_at) = ? order by published_at desc`, [year])
}

/**
 * `/posts/drafts` (signed in): the posts not yet public, newest first: the user's own, or every one for an admin.
 * The public routes answer a draft's id or slug with 404, as if it did not exist.
 */
export async function listDrafts(c: Context<'/posts/drafts', { query: typeof ListQuery }>): Promise<Post[]> {
  const { limit, offset } = c.query
  const user = c.user!
  return c.db.all<Post>(`select * from posts where not ${PUBLISHED} and (user_id = ? or ?) order by id desc limit ? offset ?`, [
    user.id,
    isAdmin(user) ? 1 : 0,
    limit,
    offset,
  ])
}

/** Creates a post written by the user of the token; they are mailed by a queued listener (app/listeners/mail-author.ts). */
export async function createPost(c: Context<string, { body: typeof PostInput }>): Promise<Response> {
  const input = await c.body()
  const author = c.user!
  // Another post with the same title may take the slug between the read and the insert (two requests at once,
  // or two processes): then nothing is inserted, and the next free slug is tried (the unique index decides).
  let post: Post | undefined
  for (let tries = 0; post === undefined; tries++) {
    if (tries === 5) throw new ServiceBusyError(1)
    post = await c.db.first<Post>(
      'insert into posts (title, slug, body, published_at, user_id) values (?, ?, ?, ?, ?) on conflict (slug) do nothing returning *',
      [input.title, await uniqueSlug(c, input.title), input.body, input.published_at ?? null, author.id],
    )
  }
  // With `c`, the event and its listeners show in this request's trace.
  await emitOrUndo(c, new PostCreated(post.id, author.id), post)
  return c.json(post, { status: 201, message: 'Post created' })
}

/**
 * Emits the event of a post just inserted; when it cannot be handed on (the queue's tables missing, the database
 * busy), deletes the post and rethrows: a 500 then means no post was created, and a client that retries creates
 * one post, not a duplicate (`title-2`). Should the delete fail too, the 500 says the post exists, and where.
 */
async function emitOrUndo(c: Context, event: PostCreated, post: Post): Promise<void> {
  try {
    await emit(event, c)
  } catch (error) {
    try {
      await c.db.execute('delete from posts where id = ?', [post.id])
    } catch {
      // An HttpError is answered, not logged: the error of the emit, the cause, goes to stderr as any other 500's would.
      logUnexpectedError(error, c)
      // The HttpError's message is shown in production too: it says what exists, not the database's error (kept as the cause).
      throw new HttpError(500, `Post ${post.id} was created (/posts/${post.slug}), but its author could not be told: do not create it again`, { cause: error })
    }
    throw error
  }
}

/**
 * Only the post's author or an admin may edit it: anyone else gets 403 for a published post (it is public, so a
 * 404 would hide nothing), and 404 for a draft (which the public routes do not show either). The check is in the
 * update's own `where`, one statement: a post deleted since the request began is a 404, not a 200 with no data,
 * and no read before the write can be outdated by the time it writes.
 */
export async function updatePost(c: Context<'/posts/{id}', { body: typeof PostInput }>): Promise<Post> {
  const input = await c.body()
  const user = c.user!
  const id = Number(c.params.id)
  const updated = await c.db.first<Post>(
    `update posts set title = ?, body = ?, published_at = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
     where id = ? and (user_id = ? or ?) returning *`,
    [input.title, input.body, input.published_at ?? null, id, user.id, isAdmin(user) ? 1 : 0],
  )
  if (updated !== undefined) return updated
  // Nothing changed: the post is gone, or it is someone else's (its author never changes, so this read cannot be
  // outdated); someone else's draft is not shown to this user, so it is "not found" too.
  throw (await c.db.first(`select id from posts where id = ? and ${PUBLISHED}`, [id])) === undefined ? postNotFound() : notYourPost()
}

/** One statement: of two deletes of one post, the one that deleted it answers 200, the other 404. */
export async function deletePost(c: Context<'/posts/{id}'>): Promise<Response> {
  const deleted = await c.db.first<{ id: number }>('delete from posts where id = ? returning id', [Number(c.params.id)])
  if (deleted === undefined) throw postNotFound()
  return c.json({ id: deleted.id }, { message: 'Post deleted' })
}

async function findPost(c: Context, column: 'id' | 'slug', value: number | string): Promise<Post> {
  const post = await c.db.first<Post>(`select * from posts where ${column} = ? and ${PUBLISHED}`, [value])
  if (post === undefined) throw postNotFound()
  return post
}

function isAdmin(user: NonNullable<Context['user']>): boolean {
  return user.role === 'admin'
}

function postNotFound(): HttpError {
  return new HttpError(404, 'Post not found')
}

function notYourPost(): HttpError {
  return new HttpError(403, 'Only the author of this post or an admin may change it')
}

/**
 * The title in lower-case ASCII words (`Ünïcödé Çafé` is `unicode-cafe`: the accents, split off by NFKD, are
 * dropped, not turned into dashes), unique among the posts. A slug the routes would never reach by
 * `GET /posts/{slug}` gets a `post-` prefix: all digits (`/posts/2026` is read as the post with id 2026),
 * `archive` (`/posts/archive` is the archive) and `drafts` (`/posts/drafts` lists the drafts).
 */
async function uniqueSlug(c: Context, title: string): Promise<string> {
  const words = title.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')
  const base = words === '' ? 'post' : /^\d+$/.test(words) || words === 'archive' || words === 'drafts' ? `post-${words}` : words
  const taken = await c.db.execute("select slug from posts where slug = ? or slug like ? || '-%'", [base, base])
  const slugs = new Set(taken.rows.map((row) => String(row.slug)))
  let slug = base
  for (let n = 2; slugs.has(slug); n++) slug = `${base}-${n}`
  return slug
}
