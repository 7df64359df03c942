/**
 * The vitest settings `svc test` uses for an app without a vitest config of
 * its own: the test files under tests/, run from the app folder (svc passes
 * `--root`). No imports: it is loaded by the app's vitest, wherever that is.
 */
export default {
  test: {
    include: ['tests/**/*.{test,spec}.?(c|m)[jt]s?(x)'],
  },
}
