import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, table } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { traceUsers } from '../../trace/users.ts'

export default defineCommand({
  meta: { name: 'trace:users', group: 'Debug and logs', description: 'Users seen in recent traces, with their emails (to replay a request as one of them)', json: ['TraceUsersJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    limit: { type: 'number', description: 'Read the newest N traces', valueHint: 'n', integer: true, min: 1, default: 1000 },
  },
  async run({ args, io, json }) {
    const result = await traceUsers(io, projectFor(io, args.cwd), args.limit)
    if (args.json) return json(result)
    if (result.users.length === 0) return printLine(io, `No signed-in user in the newest ${result.scanned} trace(s).`)
    const color = colors(io)
    printLine(io, table(result.users.map((user) => [String(user.user_id), user.email ?? color.dim('(not in the database)'), user.role ?? '', String(user.traces), user.last_seen.replace('T', ' ').slice(0, 19)]), ['ID', 'EMAIL', 'ROLE', 'TRACES', 'LAST SEEN']))
  },
})
