/**
 * The deploy guide's code is the example's real entry files (type-checked
 * with the repository): a block marked `<!-- snippet: <file> -->` must be that
 * file, word for word (`node scripts/sync-snippets.mjs` rewrites them). In
 * docs/runtimes.md every code block but the shell
 * commands is one.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const SNIPPET = /<!-- snippet: (\S+) -->\n```\w*\n([\s\S]*?)\n```/g

function snippets(doc: string): Array<{ file: string; body: string }> {
  return [...readFileSync(doc, 'utf8').matchAll(SNIPPET)].map((match) => ({ file: match[1]!, body: match[2]! }))
}

describe('docs snippets', () => {
  for (const doc of ['docs/runtimes.md', 'docs/traces.md']) {
    it(`${doc}: every snippet is its file`, () => {
      const found = snippets(doc)
      expect(found.length).toBeGreaterThan(0)
      for (const { file, body } of found) expect(body, file).toBe(readFileSync(file, 'utf8').replace(/\n+$/, ''))
    })
  }

  it('docs/runtimes.md has no code block that is not a snippet, but shell commands', () => {
    const text = readFileSync('docs/runtimes.md', 'utf8')
    // An opening fence names its language; a closing one is bare.
    const openings = [...text.matchAll(/(<!-- snippet: \S+ -->\n)?```(\w*)\n/g)].filter((match) => match[2] !== '')
    for (const opening of openings) expect(opening[1] !== undefined || opening[2] === 'sh', `a \`\`\`${opening[2]} block`).toBe(true)
  })
})
