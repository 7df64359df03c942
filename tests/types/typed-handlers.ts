/**
 * Type-level tests: checked by `tsc` (`npm run typecheck`, and
 * typecheck.test.ts in `npm test`), never run. Each `@ts-expect-error` is a
 * wrong use the compiler must refuse; if it stopped refusing one, the unused
 * directive itself fails the check.
 */
import * as v from 'valibot'
import { defineRoutes, type AuthState, type Context, type Database } from 'svc'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
function expectType<T extends true>(): T | undefined {
  return undefined
}

declare module 'svc' {
  interface ContextState {
    /** Declared by this "app": a middleware sets it. */
    requestStartedAt?: number
  }
}

const PostInput = v.object({ title: v.string(), tags: v.optional(v.array(v.string()), []) })
const OtherInput = v.object({ name: v.number() })
const PageQuery = v.object({ page: v.pipe(v.string(), v.transform(Number)) })

export default defineRoutes((r) => {
  // Path parameters follow the path literal.
  r.get('/posts/{id}', (c) => {
    expectType<Equal<typeof c.params.id, string>>()
    // @ts-expect-error: the path has no {nope}
    return c.params.nope
  })
  r.get('/archive/{year}/{month?}', (c) => {
    expectType<Equal<typeof c.params.year, string>>()
    expectType<Equal<typeof c.params.month, string | undefined>>()
    // @ts-expect-error: an optional parameter may be absent
    const month: string = c.params.month
    return month
  })
  r.get('/plain', (c) => {
    expectType<Equal<typeof c.params, {}>>()
    // @ts-expect-error: no parameters at all
    return c.params.id
  })

  // c.state is what ContextState declares: the auth plugin's `auth`, the app's own fields; nothing else.
  r.get('/me', (c) => {
    expectType<Equal<typeof c.state.auth, AuthState | undefined>>()
    expectType<Equal<typeof c.state.requestStartedAt, number | undefined>>()
    // @ts-expect-error: nobody declared `nope`
    return c.state.nope
  })

  // A handler written elsewhere names what its route declares; the route must declare a schema that gives it.
  r.post('/posts', createPost).body(PostInput)
  // @ts-expect-error: OtherInput's output is not what createPost reads
  r.post('/wrong', createPost).body(OtherInput)
  r.get('/list', listPosts).query(PageQuery)
  // A handler typed for a plain Context fits any route.
  r.get('/posts/{id}/plain', anyRoute)

  // Fields only svc writes are read-only.
  r.get('/readonly', (c) => {
    // @ts-expect-error: the error is svc's (the error handler sets it)
    c.error = new Error('x')
    // @ts-expect-error: the recorder is the tracer's
    c.recorder = undefined
    // @ts-expect-error: parameters come from the router
    c.params = {}
    // @ts-expect-error: the route comes from the router
    c.route = { method: 'GET', path: '/' }
    return null
  })
})

async function createPost(c: Context<'/posts', { body: typeof PostInput }>) {
  const input = await c.body()
  expectType<Equal<typeof input, { title: string; tags: string[] }>>()
  // @ts-expect-error: not a field of PostInput
  return input.author
}

function listPosts(c: Context<'/list', { query: typeof PageQuery }>) {
  expectType<Equal<typeof c.query, { page: number }>>()
  return c.query.page
}

async function anyRoute(c: Context) {
  expectType<Equal<typeof c.query, URLSearchParams>>()
  expectType<Equal<Awaited<ReturnType<typeof c.body>>, unknown>>()
  return c.params.id
}

// Typed reads from the database.
interface Post {
  id: number
  title: string
}
export async function reads(db: Database) {
  const posts = await db.all<Post>('select * from posts')
  expectType<Equal<typeof posts, Post[]>>()
  const post = await db.first<Post>('select * from posts where id = ?', [1])
  expectType<Equal<typeof post, Post | undefined>>()
  // @ts-expect-error: first() may find nothing
  return post.title
}
