import { defineCommand } from '../../command/define.ts'
import { withExistingDatabase } from '../../database/open.ts'
import { userRole } from '../../database/users.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'user:role', group: 'Security', description: "Set a user's role (admin, moderator...) by email, or show it", json: ['UserRoleJson'] },
  args: {
    email: { type: 'positional', description: "The user's email", valueHint: 'email' },
    role: { type: 'positional', description: 'The new role (omit it to show the current one)', required: false, valueHint: 'role' },
    ...cwdArg,
    ...jsonArg,
  },
  async run({ args, io, json }) {
    const result = await withExistingDatabase(projectFor(io, args.cwd), (db) => userRole(db, args.email, args.role))
    if (args.json) return json(result)
    if (args.role === undefined) return printLine(io, `${result.email} has the role ${result.role}.`)
    if (!result.changed) return printLine(io, `${result.email} already has the role ${result.role}.`)
    printLine(io, `${result.email} is now ${result.role} (was ${result.previous_role}). It applies to the user's next request; no new login needed.`)
  },
})
