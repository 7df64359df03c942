import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine } from '../../output/print.ts'
import { clearOptimizations, optimizeProject } from '../../project/optimize.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'optimize', group: 'Configuration', description: 'Cache what a start needs: transpiled modules, the route table, the signed configuration', json: ['OptimizeJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    clear: { type: 'boolean', description: 'Remove those caches instead' },
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const caches = args.clear ? clearOptimizations(project) : await optimizeProject(project)
    if (args.json) return json({ action: args.clear ? 'cleared' : 'cached', caches })
    const color = colors(io)
    for (const cache of caches) printLine(io, `${cache.done ? color.green('✓') : color.yellow('-')} ${cache.name.padEnd(8)}${cache.detail} ${color.dim(cache.file)}`)
  },
})
