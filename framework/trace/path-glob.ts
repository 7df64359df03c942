/**
 * The path patterns of the trace filters (`--path`, `--ignore`, the editor's
 * traces of a route): a substring, or a glob in which `*` stays within one
 * path segment, as in a route pattern or a shell glob.
 */

/** A pattern is a glob when it has one of these; otherwise a substring. */
const GLOB_CHARS = /[*?[]/

/**
 * `--path` / `--ignore`: a substring of the path, or a glob over the whole
 * path. In a glob a `*` stays within one segment, as in a route pattern or a
 * shell glob (a `*` that is a whole segment is a non-empty one); `**` crosses segments (and a whole `**` segment may be none);
 * `?` is one character and `[...]` (`[!...]`) one of (not of) a set, none of
 * them a `/`. Case-sensitive. The query string is stored apart: never matched.
 * A pattern with characters a URL percent-encodes (`café`, a space) also
 * matches the decoded path, so `--path café` finds the stored `/caf%C3%A9`.
 * Trailing slashes are tolerated on both sides, as the router tolerates them:
 * `/api/v1/posts/*` matches `/api/v1/posts/5/` (the route `/api/v1/posts/{id}`
 * answered it), never `/api/v1/posts/5/comments`.
 */
export function pathMatcher(pattern: string): (path: string) => boolean {
  const matches = rawPathMatcher(pattern)
  if (!ENCODED_IN_PATHS.test(pattern)) return matches
  // A path is stored as its URL writes it (`/caf%C3%A9`); a pattern written as people read it (`café`) is matched
  // against the path decoded too.
  return (path) => matches(path) || (path.includes('%') && matches(decodedPath(path)))
}

/** Characters a URL writes percent-encoded in a path: a pattern with one is written as people read paths. */
const ENCODED_IN_PATHS = /[^\x21-\x7e]|["<>`{}]/u

/** decodeURI, not decodeURIComponent: an encoded `/` (`%2F`) stays one, never a segment's end. */
function decodedPath(path: string): string {
  try {
    return decodeURI(path)
  } catch {
    return path
  }
}

function rawPathMatcher(pattern: string): (path: string) => boolean {
  if (!GLOB_CHARS.test(pattern)) return (path) => path.includes(pattern)
  const glob = globToRegExp(pattern)
  return (path) => glob.test(path)
}

function globToRegExp(pattern: string): RegExp {
  const glob = pattern.replace(/(?<=.)\/+$/, '')
  let source = ''
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!
    if (char === '*') {
      let end = i
      while (glob[end + 1] === '*') end++
      // A whole-segment `*` is one segment, never an empty one, as a route parameter is: `/posts/*` is not `/posts/`.
      if (end === i) source += glob[i - 1] === '/' && (i + 1 === glob.length || glob[i + 1] === '/') ? '[^/]+' : '[^/]*'
      // `/**/` is zero or more whole segments, so that `/api/**/posts` is also `/api/posts`.
      else if (glob[i - 1] === '/' && glob[end + 1] === '/') {
        source = `${source.slice(0, -1)}(?:/.*)?`
      } else source += '.*'
      i = end
    } else if (char === '?') source += '[^/]'
    else if (char === '[') {
      const end = glob.indexOf(']', i + 2)
      if (end === -1) source += '\\['
      else {
        const negated = glob[i + 1] === '!' || glob[i + 1] === '^'
        const set = glob.slice(negated ? i + 2 : i + 1, end).replace(/[\\\]^]/g, '\\$&')
        source += negated ? `[^/${set}]` : `(?!/)[${set}]`
        i = end
      }
    } else source += char.replace(/[.+^${}()|\\\]]/g, '\\$&')
  }
  return new RegExp(`^${source}/*$`)
}
