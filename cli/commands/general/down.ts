import { DEFAULT_MAINTENANCE_MESSAGE, DEFAULT_RETRY_SECONDS } from '../../../framework/index.ts'
import { readMaintenanceFile, writeMaintenanceFile } from '../../../framework/node/index.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine, printNote } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { checkAllowList, checkBypassSecret, maintenanceJson, maintenancePath, secretDigest } from '../../project/maintenance.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'down', group: 'Deployment', description: 'Put the app in maintenance mode: every request answers 503 until svc up', json: ['MaintenanceJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    message: { type: 'string', description: `What clients are told (default: "${DEFAULT_MAINTENANCE_MESSAGE}")`, valueHint: 'text' },
    retry: { type: 'number', description: 'Seconds sent as Retry-After', valueHint: 'seconds', integer: true, min: 0, max: 86_400, default: DEFAULT_RETRY_SECONDS },
    allow: { type: 'string', description: 'A client address or IPv4 range served as usual (repeatable)', valueHint: 'ip', multiple: true },
    secret: { type: 'string', description: 'A token that bypasses maintenance (X-Maintenance-Bypass header, or open /<token> once)', valueHint: 'token' },
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const allow = checkAllowList(args.allow)
    if (args.secret !== undefined) checkBypassSecret(args.secret)
    const file = maintenancePath(project, loadConfig(project))
    const before = readMaintenanceFile(file)
    const state = {
      since: before?.since ?? new Date().toISOString(),
      message: args.message ?? DEFAULT_MAINTENANCE_MESSAGE,
      retry: args.retry,
      allow,
      ...(args.secret !== undefined ? { secret_sha256: await secretDigest(args.secret) } : {}),
    }
    writeMaintenanceFile(file, state)
    if (args.json) return json(maintenanceJson(file, before !== undefined, state))
    printLine(io, `${before ? 'Still down (settings updated)' : 'The app is down'}: requests answer 503 "${state.message}" with Retry-After: ${state.retry}.`)
    if (allow.length > 0) printLine(io, `Served as usual: ${allow.join(', ')} (client addresses, after TRUSTED_PROXIES).`)
    if (args.secret !== undefined) printLine(io, `Bypass: send the header X-Maintenance-Bypass: ${args.secret}, or open /${args.secret} once in a browser (sets a cookie).`)
    printNote(io, `Running servers see it within a second (${file}). /health/live stays 200, /health/ready answers 503. svc up ends it.`)
  },
})
