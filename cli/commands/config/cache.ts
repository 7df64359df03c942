import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine, printNote } from '../../output/print.ts'
import { writeConfigCache } from '../../project/config-cache.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'config:cache', group: 'Configuration', description: 'Resolve the configuration once into a signed cache file', json: ['ConfigCacheJson'] },
  args: { ...cwdArg, ...jsonArg },
  async run({ args, io, json }) {
    const { file, keySource } = writeConfigCache(projectFor(io, args.cwd))
    if (args.json) return json({ file, action: 'written', key_source: keySource })
    printLine(io, `Configuration cached: ${file} (HMAC-SHA256, key derived from ${keySource}).`)
    printNote(io, 'It wins over .env and the environment until svc config:clear; after a change to .env, run svc config:cache again.')
  },
})
