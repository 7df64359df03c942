/** The post schemas on their own: what a client may send, and the list's query string. */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { ListQuery, PostInput } from '../../app/controllers/posts.ts'

describe('PostInput', () => {
  it('trims the title and defaults the body', () => {
    expect(v.parse(PostInput, { title: '  Hello  ' })).toEqual({ title: 'Hello', body: '' })
  })

  it('refuses an empty title and a malformed publication date', () => {
    expect(v.safeParse(PostInput, { title: '   ' }).success).toBe(false)
    expect(v.safeParse(PostInput, { title: 'Hi', published_at: 'yesterday' }).success).toBe(false)
  })
})

describe('ListQuery', () => {
  it('reads ?page and ?per_page as whole numbers, with the offset they give', () => {
    expect(v.parse(ListQuery, {})).toEqual({ page: 1, perPage: 20, limit: 20, offset: 0 })
    expect(v.parse(ListQuery, { page: '3', per_page: '10' })).toMatchObject({ page: 3, offset: 20 })
    expect(v.safeParse(ListQuery, { page: '0' }).success).toBe(false)
  })
})
