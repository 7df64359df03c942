import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine } from '../../output/print.ts'
import { clearConfigCache, configCachePath } from '../../project/config-cache.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'config:clear', group: 'Configuration', description: 'Remove the configuration cache: settings come from .env and the environment again', json: ['ConfigCacheJson'] },
  args: { ...cwdArg, ...jsonArg },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const file = configCachePath(project)
    const removed = clearConfigCache(project)
    if (args.json) return json({ file, action: removed ? 'removed' : 'absent', key_source: null })
    printLine(io, removed ? `Configuration cache removed: ${file}.` : 'There was no configuration cache.')
  },
})
