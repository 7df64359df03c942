// Bundles the extension client (src/ -> out/extension.js, CommonJS for VS Code)
// and the page scripts (webview/<page>.ts -> media/<page>.js: trace detail,
// request, dashboard) with esbuild, so the .vsix holds self-contained files
// and no node_modules.
//   node scripts/build.mjs [--production] [--watch]
import { build, context } from 'esbuild'
import { rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
/** The webview pages: webview/<page>.ts, with media/<page>.css beside media/theme.css. */
export const PAGES = ['trace-detail', 'request', 'dashboard']
const production = process.argv.includes('--production')
const watch = process.argv.includes('--watch')

const common = { bundle: true, minify: production, sourcemap: !production, logLevel: 'info', absWorkingDir: root }
const targets = [
  {
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'out/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    external: ['vscode'],
  },
  ...PAGES.map((page) => ({
    ...common,
    entryPoints: [`webview/${page}.ts`],
    outfile: `media/${page}.js`,
    platform: 'browser',
    format: 'iife',
    target: 'es2020',
  })),
]

if (watch) {
  for (const options of targets) await (await context(options)).watch()
} else {
  // A production build leaves no source maps of an earlier development build behind.
  if (production) for (const file of ['out/extension.js.map', ...PAGES.map((page) => `media/${page}.js.map`)]) rmSync(join(root, file), { force: true })
  await Promise.all(targets.map((options) => build(options)))
}
