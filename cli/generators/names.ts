/**
 * The names a generator derives from its argument: `Post`, `posts`,
 * `create_posts_table`, `app/models/blog-post.ts`... Plurals come from
 * `pluralize` (only the last word changes: `BlogPost` → `BlogPosts`,
 * `Person` → `People`). A nested name (`Admin/Post`) puts the file in a
 * folder (`app/controllers/admin/posts.ts`) and keeps the class name to its
 * last part (`Post`); a route path gets the folders too (`/admin/posts`).
 */
import pluralize from 'pluralize'
import { CliError } from '../output/cli-error.ts'

/** One word list in every case. */
export interface Cases {
  /** `BlogPost` */
  pascal: string
  /** `blogPost` */
  camel: string
  /** `blog-post` (file names, URL segments) */
  kebab: string
  /** `blog_post` (tables, columns) */
  snake: string
  /** `blog post` (messages, comments) */
  words: string
}

export interface Names {
  /** The argument as given: `Admin/BlogPost`. */
  input: string
  /** The folders of a nested name, in kebab case: `['admin']`. */
  folders: string[]
  /** The last part as given (minus a kind suffix such as `Controller`). */
  base: Cases
  singular: Cases
  plural: Cases
  /** `Blog post`: one of them, in messages (`Blog post not found`). */
  label: string
  /** `blog_posts` */
  table: string
  /** `/admin/blog-posts` */
  routePath: string
}

// Globals generated code uses, which a declaration of the same name would shadow (`export const Response` breaks
// `new Response(null, ...)`). What the templates import is checked on each rendered file instead (bindings.ts).
const TAKEN = new Set([
  'Array', 'BigInt', 'Boolean', 'Date', 'Error', 'Function', 'Headers', 'JSON', 'Map', 'Math', 'Model',
  'Number', 'Object', 'Promise', 'Proxy', 'Record', 'Reflect', 'RegExp', 'Request', 'Response', 'Set', 'String', 'Symbol',
  'URL', 'WeakMap', 'WeakSet',
])
const RESERVED = new Set([
  'arguments', 'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else',
  'enum', 'eval', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'implements', 'import', 'in', 'instanceof',
  'interface', 'let', 'new', 'null', 'package', 'private', 'protected', 'public', 'return', 'static', 'super', 'switch', 'this',
  'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with', 'yield',
])

/** The words of a name: `BlogPost`, `blog_post`, `blog-post`, `HTMLParser2` → `['blog', 'post']`, `['html', 'parser2']`. */
export function splitWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter((word) => word !== '')
    .map((word) => word.toLowerCase())
}

export function casesOf(words: readonly string[]): Cases {
  const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)
  const pascal = words.map(capital).join('')
  return {
    pascal,
    camel: pascal.charAt(0).toLowerCase() + pascal.slice(1),
    kebab: words.join('-'),
    snake: words.join('_'),
    words: words.join(' '),
  }
}

function withLastWord(words: readonly string[], change: (word: string) => string): string[] {
  return [...words.slice(0, -1), change(words.at(-1)!)]
}

/**
 * The names of `input` for a generator whose files end in `suffix` (`Controller`):
 * `make:controller PostController` and `make:controller Post` name the same file.
 */
export function deriveNames(input: string, suffix = ''): Names {
  const trimmed = input.trim().replace(/\.ts$/, '')
  const parts = trimmed.split(/[\\/]/)
  if (trimmed === '' || parts.some((part) => !/^[A-Za-z][A-Za-z0-9_-]*$/.test(part))) {
    throw new CliError('E_BAD_NAME', `"${input}" is not a name a generator can use`, {
      hint: 'letters, digits, - and _, starting with a letter; a nested name uses / (Admin/Post)',
    })
  }
  let last = parts.at(-1)!
  if (suffix !== '' && last.length > suffix.length && last.toLowerCase().endsWith(suffix.toLowerCase())) last = last.slice(0, -suffix.length)
  const words = splitWords(last)
  const base = casesOf(words)
  const singular = casesOf(withLastWord(words, (word) => pluralize.singular(word)))
  const plural = casesOf(withLastWord(words, (word) => pluralize.plural(word)))
  for (const cases of [base, singular, plural]) {
    if (TAKEN.has(cases.pascal) || RESERVED.has(cases.camel)) {
      throw new CliError('E_BAD_NAME', `"${input}" would declare ${TAKEN.has(cases.pascal) ? cases.pascal : cases.camel}, a name TypeScript code already uses`, {
        hint: 'pick a more specific name (Product, not Object; OrderEvent, not Event)',
      })
    }
  }
  const folders = parts.slice(0, -1).map((part) => casesOf(splitWords(part)).kebab)
  return {
    input: trimmed,
    folders,
    base,
    singular,
    plural,
    label: singular.words.charAt(0).toUpperCase() + singular.words.slice(1),
    table: plural.snake,
    routePath: `/${[...folders, plural.kebab].join('/')}`,
  }
}

/**
 * The name whose plural is `table`: `projects` → `project`, `blog_posts` → `blog_post`. pluralize does not always
 * take back its own plural (`pluralize.plural('sku')` is `skus`, the table make:crud Sku creates, but
 * `pluralize.singular('skus')` is `skus`), so the singular is the candidate whose plural is the table.
 */
export function singularOfTable(table: string): string {
  const words = table.split('_')
  const last = words.at(-1)!
  const candidates = [pluralize.singular(last), last.replace(/s$/, ''), last.replace(/es$/, '')]
  const singular = candidates.find((candidate) => candidate !== '' && pluralize.plural(candidate) === last) ?? candidates[0]!
  return [...words.slice(0, -1), singular].join('_')
}

/** `admin/blog-post`: a file's path under its kind's folder, without extension. */
export function nestedPath(names: Names, file: string): string {
  return [...names.folders, file].join('/')
}

/** `../` repeated to climb from a file `depth` folders deep in its kind's folder back to that folder. */
export function upFrom(names: Names): string {
  return '../'.repeat(names.folders.length)
}
