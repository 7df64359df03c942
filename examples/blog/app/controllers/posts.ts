/** The posts resource: list, show (by id or slug), archive, create, update, delete. */
import * as v from 'valibot'
import { HttpError, paginate, type Context } from 'svc'

export interface Post {
  id: number
  title: string
  slug: string
  body: string
  published_at: string | null
  created_at: string
  updated_at: string
}

const PostInput = v.object({
  title: v.pipe(v.string('title must be a string'), v.trim(), v.nonEmpty('title is required'), v.maxLength(200)),
  body: v.optional(v.pipe(v.string('body must be a string'), v.maxLength(100_000)), ''),
  published_at: v.optional(v.nullable(v.pipe(v.string(), v.isoTimestamp('published_at must be an ISO 8601 timestamp')))),
})

/** `?page` and `?per_page` (20 by default, at most 100): anything else is a 422. */
export async function listPosts(c: Context): Promise<Post[]> {
  const { limit, offset } = paginate(c.query)
  const result = await c.db.execute('select * from posts order by id desc limit ? offset ?', [limit, offset])
  return result.rows as unknown as Post[]
}

/** v2 adds pagination metadata around the same list. */
export async function listPostsWithMeta(c: Context) {
  const { page, perPage, limit, offset } = paginate(c.query)
  const [rows, count] = await c.db.batch([
    { sql: 'select * from posts order by id desc limit ? offset ?', args: [limit, offset] },
    'select count(*) as total from posts',
  ])
  const total = Number(count!.rows[0]!.total)
  return { posts: rows!.rows as unknown as Post[], meta: { page, per_page: perPage, total, pages: Math.ceil(total / perPage) } }
}

export async function showPost(c: Context): Promise<Post> {
  return findPost(c, 'id', Number(c.params.id))
}

export async function showPostBySlug(c: Context): Promise<Post> {
  return findPost(c, 'slug', c.params.slug!)
}

/** `/posts/archive/{year?}`: every published post, or those of one year. */
export async function archive(c: Context): Promise<Post[]> {
  const year = c.params.year
  const result =
    year === undefined
      ? await c.db.execute('select * from posts where published_at is not null order by published_at desc')
      : await c.db.execute("select * from posts where strftime('%Y', published_at) = ? order by published_at desc", [year])
  return result.rows as unknown as Post[]
}

export async function createPost(c: Context): Promise<Response> {
  const input = await c.validate(PostInput)
  const slug = await uniqueSlug(c, input.title)
  const result = await c.db.execute('insert into posts (title, slug, body, published_at) values (?, ?, ?, ?) returning *', [
    input.title,
    slug,
    input.body,
    input.published_at ?? null,
  ])
  return c.json(result.rows[0], { status: 201, message: 'Post created' })
}

export async function updatePost(c: Context): Promise<Post> {
  const post = await findPost(c, 'id', Number(c.params.id))
  const input = await c.validate(PostInput)
  const result = await c.db.execute(
    "update posts set title = ?, body = ?, published_at = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') where id = ? returning *",
    [input.title, input.body, input.published_at ?? null, post.id],
  )
  return result.rows[0] as unknown as Post
}

export async function deletePost(c: Context): Promise<Response> {
  const post = await findPost(c, 'id', Number(c.params.id))
  await c.db.execute('delete from posts where id = ?', [post.id])
  return c.json({ id: post.id }, { message: 'Post deleted' })
}

async function findPost(c: Context, column: 'id' | 'slug', value: number | string): Promise<Post> {
  const result = await c.db.execute(`select * from posts where ${column} = ?`, [value])
  if (result.rows.length === 0) throw new HttpError(404, 'Post not found')
  return result.rows[0] as unknown as Post
}

async function uniqueSlug(c: Context, title: string): Promise<string> {
  const base = title.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'post'
  const taken = await c.db.execute("select slug from posts where slug = ? or slug like ? || '-%'", [base, base])
  const slugs = new Set(taken.rows.map((row) => String(row.slug)))
  let slug = base
  for (let n = 2; slugs.has(slug); n++) slug = `${base}-${n}`
  return slug
}
