import { defineCommand } from '../../command/define.ts'
import type { AuthTokenJson } from '../../contract/routes.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine, printNote } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { ReplayTarget } from '../../trace/replay.ts'

export default defineCommand({
  meta: {
    name: 'auth:token',
    group: 'Testing',
    description: 'Sign a fresh access token for a user of the app database (development and test only)',
    json: ['AuthTokenJson'],
  },
  args: {
    email: { type: 'positional', description: 'The user', valueHint: 'email' },
    ...cwdArg,
    ...jsonArg,
  },
  async run({ args, io, json }) {
    const target = new ReplayTarget(projectFor(io, args.cwd), { load: { trace: false } })
    try {
      const signed = await target.signedFor({ email: args.email })
      if (args.json) return json(signed)
      printNote(io, `Access token for ${signed.user.email} (user ${signed.user.id}), valid ${signed.expires_in} s:`)
      printLine(io, signed.token)
    } finally {
      await target.close()
    }
  },
})
