import { removeMaintenanceFile } from '../../../framework/node/index.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { maintenanceJson, maintenancePath } from '../../project/maintenance.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'up', group: 'Deployment', description: 'End maintenance mode', json: ['MaintenanceJson'] },
  args: { ...cwdArg, ...jsonArg },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const file = maintenancePath(project, loadConfig(project))
    const wasDown = removeMaintenanceFile(file)
    if (args.json) return json(maintenanceJson(file, wasDown, undefined))
    printLine(io, wasDown ? 'The app is up: running servers serve requests again within a second.' : 'The app was not down.')
  },
})
