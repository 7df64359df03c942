/** README's route snippet is the example app's routes/api.ts, character for character. */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const read = (file: string) => readFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url)), 'utf8')

it("README's route snippet matches examples/blog/routes/api.ts", () => {
  const readme = read('README.md')
  const start = readme.indexOf("The example's `routes/api.ts`, as it is:")
  expect(start, 'the snippet is introduced as the example file').toBeGreaterThan(-1)
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(start))
  expect(block?.[1]).toBe(read('examples/blog/routes/api.ts'))
})
