import { relative } from 'node:path'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { linkPublicStorage, PUBLIC_STORAGE_PREFIX, publicStorageLink, publicStorageTarget } from '../../project/public-storage.ts'

export default defineCommand({
  meta: {
    name: 'storage:link',
    group: 'General',
    description: 'Link public/storage to storage/app/public, whose files are then served under /storage/',
    json: ['StorageLinkJson'],
  },
  args: {
    ...cwdArg,
    ...jsonArg,
    force: { type: 'boolean', description: 'Replace a link that points elsewhere' },
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const status = linkPublicStorage(project, { force: args.force })
    const link = publicStorageLink(project)
    const target = publicStorageTarget(project)
    if (args.json) return json({ link, target, status, url_prefix: `${PUBLIC_STORAGE_PREFIX}/` })
    const shown = (path: string) => relative(project.root, path) || '.'
    const verb = status === 'exists' ? 'already links' : status === 'replaced' ? 'now links' : 'links'
    printLine(io, `${shown(link)} ${verb} to ${shown(target)}: its files are served under ${PUBLIC_STORAGE_PREFIX}/`)
  },
})
