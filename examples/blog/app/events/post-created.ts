/**
 * Emitted by createPost once the post is stored: `await emit(new PostCreated(post.id, user.id), c)`.
 * Plain data: its queued listener gets it back from JSON.
 */
export class PostCreated {
  constructor(
    readonly postId: number,
    readonly authorId: number,
  ) {}
}
