import { defineCommand } from 'citty'
import { createApiKey, parseScopes } from '../../../framework/index.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { printJson, printLine, printNote } from '../../output/print.ts'
import { loadConfig, openProjectDatabase } from '../../project/load-app.ts'
import { findProject } from '../../project/project.ts'

export interface MakeApiKeyJson {
  id: number
  name: string
  /** The key itself; it is stored only hashed and cannot be shown again. */
  key: string
  scopes: string[]
  expires_at: string
}

const MAX_DAYS = 3650

/** Creates a scoped API key, prints it once, stores only its hash. */
export default defineCommand({
  args: {
    name: { type: 'positional', description: 'What the key is for (e.g. billing-service)', required: true },
    scopes: { type: 'positional', description: 'Comma-separated scopes (e.g. posts:read,posts:write)', required: true },
    days: { type: 'positional', description: `Lifetime in days (1 to ${MAX_DAYS})`, required: true },
    ...cwdArg,
    ...jsonArg,
  },
  async run({ args }) {
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
    const project = findProject(args.cwd)
    const db = await openProjectDatabase(project, loadConfig(project))
    try {
      const table = await db.execute("select 1 from sqlite_master where type = 'table' and name = 'api_keys'")
      if (table.rows.length === 0) {
        throw new CliError('E_NO_APIKEY_TABLE', 'The api_keys table does not exist', {
          hint: 'run svc make:apikey-table, then svc migrate',
        })
      }
      const created = await createApiKey(db, { name, scopes, days })
      if (args.json) return printJson(created satisfies MakeApiKeyJson)
      printLine(created.key)
      printNote(
        `API key #${created.id} "${name}" with scopes ${scopes.join(', ')}, valid until ${created.expires_at}. ` +
          'Copy it now: only its hash is stored. Clients send it as the x-api-key header.',
      )
    } finally {
      db.close()
    }
  },
})
