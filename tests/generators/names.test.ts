/** The names generators derive from their argument, and `--fields`. */
import { describe, expect, it } from 'vitest'
import { deriveNames, parseFields } from '../../cli/generators/index.ts'
import { migrationName } from '../../cli/generators/generator.ts'
import { appPaths, identifiers } from '../../cli/generators/paths.ts'

describe('deriveNames', () => {
  it('derives every case, the table and the route path; plurals through pluralize', () => {
    const names = deriveNames('BlogPost')
    expect(names.singular).toEqual({ pascal: 'BlogPost', camel: 'blogPost', kebab: 'blog-post', snake: 'blog_post', words: 'blog post' })
    expect(names.plural.pascal).toBe('BlogPosts')
    expect(names.table).toBe('blog_posts')
    expect(names.routePath).toBe('/blog-posts')
    expect(names.label).toBe('Blog post')
    expect(deriveNames('Person').plural.snake).toBe('people')
    expect(deriveNames('Category').table).toBe('categories')
    expect(deriveNames('posts').singular.pascal).toBe('Post')
    expect(deriveNames('blog_post').singular.pascal).toBe('BlogPost')
    expect(deriveNames('blog-post').table).toBe('blog_posts')
    expect(deriveNames('HTMLPage').singular.kebab).toBe('html-page')
    expect(deriveNames('OAuth2Client').table).toBe('o_auth2_clients')
  })

  it('nests Admin/Post: folders in paths and the route, the last part for class names', () => {
    const names = deriveNames('Admin/BlogPost')
    expect(names.folders).toEqual(['admin'])
    expect(names.routePath).toBe('/admin/blog-posts')
    expect(names.table).toBe('blog_posts')
    expect(appPaths.model(names)).toBe('app/models/admin/blog-post.ts')
    expect(appPaths.controller(names)).toBe('app/controllers/admin/blog-posts.ts')
    expect(appPaths.seeder(names)).toBe('database/seeders/admin-blog-posts.ts')
    const id = identifiers(names)
    expect(id.model).toBe('BlogPost')
    expect(id.controllerAlias).toBe('adminBlogPosts')
    expect(id.handlers).toEqual({ list: 'listBlogPosts', show: 'showBlogPost', create: 'createBlogPost', update: 'updateBlogPost', delete: 'deleteBlogPost' })
    expect(deriveNames('sales\\Reports/MonthlyReport').folders).toEqual(['sales', 'reports'])
  })

  it('drops the kind suffix when given (PostController is Post)', () => {
    expect(deriveNames('PostController', 'Controller').base.pascal).toBe('Post')
    expect(deriveNames('Controller', 'Controller').base.pascal).toBe('Controller')
    expect(deriveNames('ProductObserver.ts', 'Observer').singular.pascal).toBe('Product')
  })

  it.each(['', ' ', '../etc/passwd', '/abs', 'a//b', '1Post', 'Post!', 'Posts/../x'])('refuses %j (E_BAD_NAME)', (input) => {
    expect(() => deriveNames(input)).toThrow(expect.objectContaining({ code: 'E_BAD_NAME' }))
  })

  it.each(['Promise', 'Object', 'Response', 'delete', 'class'])('refuses %s, a name the generated code needs', (input) => {
    expect(() => deriveNames(input)).toThrow(expect.objectContaining({ code: 'E_BAD_NAME', message: expect.stringContaining('already uses') }))
  })
})

describe('migrationName', () => {
  it.each([
    ['create_foos_table', 'create_foos_table'],
    ['CreateFoosTable', 'create_foos_table'],
    ['AddSlugToPostsTable', 'add_slug_to_posts_table'],
    ['create-foos-table', 'create_foos_table'],
    ['Post', 'create_posts_table'],
    ['BlogPost', 'create_blog_posts_table'],
    ['backfill_prices', 'backfill_prices'],
  ])('%s is %s', (input, name) => {
    expect(migrationName(input)).toBe(name)
  })
})

describe('parseFields', () => {
  it('reads name:type pairs, ? for optional', () => {
    expect(parseFields('title:string, body:text?,views:integer,price:number,published:boolean,due_at:date?')).toEqual([
      { name: 'title', type: 'string', optional: false },
      { name: 'body', type: 'text', optional: true },
      { name: 'views', type: 'integer', optional: false },
      { name: 'price', type: 'number', optional: false },
      { name: 'published', type: 'boolean', optional: false },
      { name: 'due_at', type: 'date', optional: true },
    ])
    expect(parseFields(undefined)).toEqual([])
    expect(parseFields('')).toEqual([])
  })

  it('reads the table of a references field: after the type (author_id:references:users), else from the column (project_id: projects)', () => {
    expect(parseFields('author_id:references:users?,project_id:references,category_id:references')).toEqual([
      { name: 'author_id', type: 'references', optional: true, table: 'users' },
      { name: 'project_id', type: 'references', optional: false, table: 'projects' },
      { name: 'category_id', type: 'references', optional: false, table: 'categories' },
    ])
  })

  it.each([
    ['label:strng', '"label:strng" is not <column>:<type> (no type "strng"; did you mean string?)'],
    ['name:String?', '(no type "String"; did you mean string?)'],
    ['count:int', '(no type "int"; did you mean integer?)'],
    ['firstName:string', '(the column "firstName" is not snake_case: first_name)'],
    ['due-at:date', '(the column "due-at" is not snake_case: due_at)'],
    // Modifiers as other generators take them: the one --fields takes is a trailing ?.
    ['note:text:nullable', '(no modifier "nullable": write note:text?)'],
    ['sku:string:unique', '(no modifier "unique": a trailing ? (sku:string?) is the one --fields takes; add an index or a default in the migration it writes)'],
    // A third part is a references field's table, in snake_case, before the ?.
    ['author_id:references?:users', '(the ? goes last: author_id:references:users?)'],
    ['author_id:references:Users', '(the table "Users" is not snake_case: author_id:references:users)'],
    ['author_id:integer:users', "(a table after the type is a references field's: author_id:references:users)"],
  ])('says which half of %j is wrong, and the likely fix', (spec, message) => {
    expect(() => parseFields(spec)).toThrow(message)
  })

  it.each([
    ['title', /is not <column>:<type>/],
    ['title:varchar', /types: string, text/],
    ['Title:string', /snake_case/],
    ['id:integer', /added to every table/],
    ['a:string,a:text', /given twice/],
    ['drop table x:string', /is not/],
    ['constructor:boolean', /every JavaScript object has/],
    ['prototype:string', /every JavaScript object has/],
  ])('refuses %j (E_BAD_FIELDS)', (spec, message) => {
    let caught: unknown
    try {
      parseFields(spec)
    } catch (error) {
      caught = error
    }
    expect(caught).toMatchObject({ code: 'E_BAD_FIELDS' })
    expect(`${(caught as Error).message} ${(caught as { hint?: string }).hint ?? ''}`).toMatch(message)
  })
})
