/**
 * Picks the locale to answer in from an `Accept-Language` header (RFC 9110
 * §12.5.4): the available locale the client ranks highest (`q`), an exact
 * tag first, then its language alone (`fr-CA` is answered in `fr`), then a
 * regional variant of it (`en` is answered in `en-GB` when that is all there
 * is); the fallback when nothing matches.
 */

interface Range {
  tag: string
  q: number
  order: number
}

export function negotiateLocale(header: string | null | undefined, available: readonly string[], fallback: string): string {
  if (header === null || header === undefined || header.trim() === '') return fallback
  const byTag = new Map(available.map((locale) => [locale.toLowerCase(), locale]))
  const ranges = parseRanges(header)
  for (const { tag } of ranges) {
    if (tag === '*') return fallback
    const exact = byTag.get(tag)
    if (exact !== undefined) return exact
    const language = tag.split('-')[0]!
    const base = byTag.get(language)
    if (base !== undefined) return base
    const regional = available.find((locale) => locale.toLowerCase().split('-')[0] === language)
    if (regional !== undefined) return regional
  }
  return fallback
}

/** The ranges the client accepts (q > 0), best first; equal weights keep their order. */
function parseRanges(header: string): Range[] {
  const ranges: Range[] = []
  header.split(',').forEach((part, order) => {
    const [rawTag, ...parameters] = part.split(';')
    const tag = rawTag!.trim().toLowerCase()
    if (!/^(\*|[a-z]{1,8}(-[a-z0-9]{1,8})*)$/.test(tag)) return
    let q = 1
    for (const parameter of parameters) {
      const [name, value] = parameter.split('=').map((text) => text.trim())
      if (name === 'q') q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value ?? '') ? Number(value) : 0
    }
    if (q > 0) ranges.push({ tag, q, order })
  })
  return ranges.sort((a, b) => b.q - a.q || a.order - b.order)
}
