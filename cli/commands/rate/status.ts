import { resolveAuthSettings } from '../../../framework/index.ts'
import { defineCommand } from '../../command/define.ts'
import type { RateStatusJson } from '../../contract/devtools.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, printNote, table } from '../../output/print.ts'
import { openExistingDatabase } from '../../database/open.ts'
import { loadConfig } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { clearCounters, throttleCounters } from '../../throttle/counters.ts'

const MEMORY_NOTE =
  'THROTTLE_STORE=memory: the route throttles count inside the serving process, which no other process can read; set THROTTLE_STORE=database to see and clear them here (docs/throttling.md)'

export default defineCommand({
  meta: { name: 'rate:status', group: 'Security', description: 'Current throttle counters by key (the database store), and clearing them', json: ['RateStatusJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    clear: { type: 'string', description: 'Delete this counter; * matches any text (every counter of a client: "*:ip:10.0.0.7")', valueHint: 'key' },
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const config = loadConfig(project)
    const store = resolveAuthSettings(config).throttleStore
    const db = await openExistingDatabase(project, config)
    let document: RateStatusJson
    try {
      const cleared = args.clear === undefined ? null : await clearCounters(db, args.clear)
      document = { store, counters: await throttleCounters(db, Date.now()), cleared, note: store === 'memory' ? MEMORY_NOTE : null }
    } finally {
      db.close()
    }
    if (args.json) return json(document)
    const color = colors(io)
    if (document.cleared !== null) printLine(io, `Cleared ${document.cleared} counter${document.cleared === 1 ? '' : 's'} matching ${args.clear}`)
    if (document.note !== null) printNote(io, color.dim(document.note))
    if (document.counters.length === 0) return printLine(io, 'No counters are counting in the database store.')
    const rows = document.counters.map((counter) => [
      counter.key,
      counter.throttle === null ? String(counter.hits) : `${counter.hits}/${counter.throttle.max_attempts}`,
      `${counter.resets_in}s`,
      counter.throttle?.blocked ? color.red('blocked') : '',
    ])
    printLine(io, table(rows, ['KEY', 'HITS', 'RESETS IN', '']))
  },
})
