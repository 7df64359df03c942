/**
 * `npm run build` runs this from dist/: it loads every compiled command once
 * and writes dist/cli/commands/manifest.json, which the binary reads for
 * dispatch, list, help and completion (see manifest.ts).
 */
import { writeFileSync } from 'node:fs'
import { buildManifest, MANIFEST_FILE } from './manifest.ts'

const manifest = await buildManifest()
writeFileSync(new URL(`../commands/${MANIFEST_FILE}`, import.meta.url), `${JSON.stringify(manifest, null, 2)}\n`)
// The commands loaded above may hold handles (workers, pools) open: this script is done.
process.exit(0)
