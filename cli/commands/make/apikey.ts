import { createApiKey, parseScopes } from '../../../framework/index.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { printLine, printNote } from '../../output/print.ts'
import { loadConfig, openProjectDatabase } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'

const MAX_DAYS = 3650

/** Creates a scoped API key, prints it once, stores only its hash. */
export default defineCommand({
  meta: { name: 'make:apikey', group: 'Generators', description: 'Create a scoped API key, shown once (only its hash is stored)', json: ['MakeApiKeyJson'] },
  args: {
    name: { type: 'positional', description: 'What the key is for (e.g. billing-service)', valueHint: 'name' },
    scopes: { type: 'positional', description: 'Comma-separated scopes (e.g. posts:read,posts:write)', valueHint: 'scopes' },
    days: { type: 'positional', description: `Lifetime in days (1 to ${MAX_DAYS})`, valueHint: 'days' },
    ...cwdArg,
    ...jsonArg,
  },
  async run({ args, io, json }) {
    const name = String(args.name).trim()
    if (name === '' || name.length > 100) throw new CliError('E_BAD_ARGUMENT', 'the name must be 1 to 100 characters')
    let scopes: string[]
    try {
      scopes = parseScopes(String(args.scopes))
    } catch (error) {
      throw new CliError('E_BAD_ARGUMENT', `scopes: ${(error as Error).message}`)
    }
    const days = Number(args.days)
    if (!/^\d+$/.test(String(args.days)) || days < 1 || days > MAX_DAYS) {
      throw new CliError('E_BAD_ARGUMENT', `days must be a whole number from 1 to ${MAX_DAYS}, got "${String(args.days)}"`)
    }
    const project = projectFor(io, args.cwd)
    const db = await openProjectDatabase(project, loadConfig(project))
    try {
      const table = await db.execute("select 1 from sqlite_master where type = 'table' and name = 'api_keys'")
      if (table.rows.length === 0) {
        throw new CliError('E_NO_APIKEY_TABLE', 'The api_keys table does not exist', {
          hint: 'run svc make:apikey-table, then svc migrate',
        })
      }
      const created = await createApiKey(db, { name, scopes, days })
      if (args.json) return json(created)
      printLine(io, created.key)
      printNote(
        io,
        `API key #${created.id} "${name}" with scopes ${scopes.join(', ')}, valid until ${created.expires_at}. ` +
          'Copy it now: only its hash is stored. Clients send it as the x-api-key header.',
      )
    } finally {
      db.close()
    }
  },
})
