import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine, printNote } from '../../output/print.ts'
import { writeEnvCache } from '../../project/env-cache.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'env:cache', group: 'Configuration', description: 'Write the environment without its sensitive values to a cache file', json: ['EnvCacheJson'] },
  args: { ...cwdArg, ...jsonArg },
  async run({ args, io, json }) {
    const { file, kept, leftOut } = writeEnvCache(projectFor(io, args.cwd))
    if (args.json) return json({ file, kept, left_out: leftOut })
    printLine(io, `Environment cached: ${file} (${kept.length} variables).`)
    if (leftOut.length > 0) printLine(io, `Left out as sensitive: ${leftOut.join(', ')}.`)
    printNote(io, 'Names containing SECRET, KEY, PASSWORD, TOKEN or PRIVATE, and URLs with a password, are never written. svc doctor compares the environment with it.')
  },
})
