/**
 * Rewrites every `<!-- snippet: <file> -->` code block of the docs from its
 * file (tests/runtimes/docs.test.ts fails while one differs):
 *
 *   node scripts/sync-snippets.mjs
 */
import { readFileSync, writeFileSync } from 'node:fs'

for (const doc of ['docs/runtimes.md', 'docs/traces.md']) {
  const text = readFileSync(doc, 'utf8')
  const synced = text.replace(/<!-- snippet: (\S+) -->\n```(\w*)\n[\s\S]*?\n```/g, (_, file, lang) => `<!-- snippet: ${file} -->\n\`\`\`${lang}\n${readFileSync(file, 'utf8').replace(/\n+$/, '')}\n\`\`\``)
  if (synced !== text) writeFileSync(doc, synced)
}
