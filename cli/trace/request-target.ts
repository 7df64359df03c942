/**
 * A request's path as a user types it to a command that looks it up
 * (api:why): pasted whole from a browser or a log (`http://127.0.0.1:8080/api/v1/posts?page=2`)
 * or without its first slash (`api/v1/posts`). The router matched
 * `api/v1/posts` while the trace search, which compares paths as recorded
 * (always with the slash), found none; a URL matched no route at all.
 */
export interface RequestTarget {
  path: string
  /** The query string without its `?`; undefined when none was given. */
  query: string | undefined
}

export function requestTarget(text: string): RequestTarget {
  const target = /^https?:\/\//i.test(text) ? urlTarget(text) : text
  const at = target.indexOf('?')
  const path = at === -1 ? target : target.slice(0, at)
  return { path: path.startsWith('/') ? path : `/${path}`, query: at === -1 ? undefined : target.slice(at + 1) }
}

/** The path and query of a URL, as sent (percent-encoded); the URL as given when it does not parse. */
function urlTarget(text: string): string {
  try {
    const url = new URL(text)
    return `${url.pathname}${url.search}`
  } catch {
    return text
  }
}
