/** Every route here is under /api. */
import { defineRoutes, HttpError } from 'svc'
import * as posts from '../app/controllers/posts.ts'
import { responseTime } from '../app/middleware/response-time.ts'

// .response() and .errors() document the answers for `svc make:openapi` (a handler's own 404 is not known otherwise).
const noSuchPost = { 404: 'No post has this id' }

export default defineRoutes((r) => {
  r.version(1, (r) => {
    r.get('/posts', posts.listPosts).query(posts.ListQuery).response(posts.PostList)
    r.get('/posts/archive/{year?}', posts.archive).where('year', /\d{4}/).response(posts.PostList)
    // The posts not yet public (no published_at, or a future one): the user's own, every one for an admin.
    r.get('/posts/drafts', posts.listDrafts).query(posts.ListQuery).middleware('auth').response(posts.PostList)
    // A draft is not found here but by its author and admins, in /posts/drafts.
    r.get('/posts/{id}', posts.showPost).where('id', /\d+/).response(posts.Post).errors(noSuchPost)
    // Reached only when {id} above is not numeric: a failed constraint falls through.
    r.get('/posts/{slug}', posts.showPostBySlug).where('slug', /[a-z0-9-]+/).response(posts.Post).errors({ 404: 'No post has this slug' })
    // Writing needs a bearer token (POST /api/auth/login); creating is limited to 10 a minute per user.
    // With an Idempotency-Key header, a retried create answers the first answer instead of posting twice.
    r.post('/posts', posts.createPost)
      .body(posts.PostInput)
      .middleware('auth', 'throttle:10,1', 'idempotent:optional')
      .response(posts.Post, { status: 201 })
    // A post is edited by its author or an admin (updatePost checks it: 403 for anyone else).
    r.put('/posts/{id}', posts.updatePost)
      .where('id', /\d+/)
      .body(posts.PostInput)
      .middleware('auth')
      .response(posts.Post)
      .errors({ ...noSuchPost, 403: 'The post is not yours: only its author or an admin may change it' })
    // Only admins delete (moderation): an author cannot take back a post, only edit it.
    r.delete('/posts/{id}', posts.deletePost).where('id', /\d+/).middleware('auth:admin').response(posts.DeletedPost).errors(noSuchPost)
  })

  r.version(2, (r) => {
    r.group({ prefix: 'posts', middleware: [responseTime] }, (r) => {
      r.get('/', posts.listPostsWithMeta).query(posts.ListQuery).response(posts.PostPage)
      // v2 requires the Idempotency-Key (400 without one).
      r.post('/', posts.createPost)
        .body(posts.PostInput)
        .middleware('auth', 'throttle:10,1', 'idempotent')
        .response(posts.Post, { status: 201 })
      r.get('/{id}', posts.showPost).where('id', /\d+/).response(posts.Post).errors(noSuchPost)
    })
  })

  r.fallback((c) => {
    throw new HttpError(404, `No API route for ${c.method} ${c.path}`)
  })
})
