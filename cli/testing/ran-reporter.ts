/**
 * The vitest reporter `svc test --filter` adds beside the one that prints:
 * it writes how many tests ran (passed or failed) to the file SVC_TEST_RAN
 * names. vitest exits 0 when a name filter skips every test, so svc reads
 * this to tell (testing/vitest.ts). Loaded by vitest from its path, so it
 * types the little it reads instead of importing vitest's types.
 */
import { writeFileSync } from 'node:fs'

interface TestCaseView {
  result(): { state: string }
}
interface TestModuleView {
  children: { allTests(): Iterable<TestCaseView> }
}

export default class RanReporter {
  onTestRunEnd(modules: readonly TestModuleView[]): void {
    const file = process.env.SVC_TEST_RAN
    if (file === undefined) return
    let total = 0
    let ran = 0
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        total++
        const { state } = test.result()
        if (state === 'passed' || state === 'failed') ran++
      }
    }
    writeFileSync(file, JSON.stringify({ total, ran }))
  }
}
