/** The post schemas on their own: what a client may send, and the page query. */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { PageQuery, PostInput } from '../../app/controllers/posts.ts'

describe('PostInput', () => {
  it('trims the title and defaults the body', () => {
    expect(v.parse(PostInput, { title: '  Hello  ' })).toEqual({ title: 'Hello', body: '' })
  })

  it('refuses an empty title and a malformed publication date', () => {
    expect(v.safeParse(PostInput, { title: '   ' }).success).toBe(false)
    expect(v.safeParse(PostInput, { title: 'Hi', published_at: 'yesterday' }).success).toBe(false)
  })
})

describe('PageQuery', () => {
  it('reads ?page as a whole number from 1, and 1 when absent', () => {
    expect(v.parse(PageQuery, {})).toEqual({ page: 1 })
    expect(v.parse(PageQuery, { page: '3' })).toEqual({ page: 3 })
    expect(v.safeParse(PageQuery, { page: '0' }).success).toBe(false)
  })
})
