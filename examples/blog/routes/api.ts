/** Every route here is under /api. */
import { defineRoutes, HttpError } from 'svc'
import * as posts from '../app/controllers/posts.ts'
import { responseTime } from '../app/middleware/response-time.ts'

export default defineRoutes((r) => {
  r.version(1, (r) => {
    r.get('/posts', posts.listPosts).query(posts.ListQuery)
    r.get('/posts/archive/{year?}', posts.archive).where('year', /\d{4}/)
    r.get('/posts/{id}', posts.showPost).where('id', /\d+/).response(posts.Post)
    // Reached only when {id} above is not numeric: a failed constraint falls through.
    r.get('/posts/{slug}', posts.showPostBySlug).where('slug', /[a-z0-9-]+/)
    // Writing needs a bearer token (POST /api/auth/login); creating is limited to 10 a minute per user.
    // With an Idempotency-Key header, a retried create answers the first answer instead of posting twice.
    r.post('/posts', posts.createPost).body(posts.PostInput).middleware('auth', 'throttle:10,1', 'idempotent:optional')
    r.put('/posts/{id}', posts.updatePost).where('id', /\d+/).body(posts.PostInput).middleware('auth')
    // Only admins delete.
    r.delete('/posts/{id}', posts.deletePost).where('id', /\d+/).middleware('auth:admin')
  })

  r.version(2, (r) => {
    r.group({ prefix: 'posts', middleware: [responseTime] }, (r) => {
      r.get('/', posts.listPostsWithMeta).query(posts.ListQuery)
      // v2 requires the Idempotency-Key (400 without one).
      r.post('/', posts.createPost).body(posts.PostInput).middleware('auth', 'throttle:10,1', 'idempotent')
      r.get('/{id}', posts.showPost).where('id', /\d+/)
    })
  })

  r.fallback((c) => {
    throw new HttpError(404, `No API route for ${c.method} ${c.path}`)
  })
})
