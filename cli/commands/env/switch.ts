import { chmodSync, copyFileSync, existsSync, readdirSync } from 'node:fs'
import { basename, join } from 'node:path'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { printLine, printNote } from '../../output/print.ts'
import { configCachePath } from '../../project/config-cache.ts'
import { backupEnvFile } from '../../project/env-backup.ts'
import { checkEnvironment } from '../../project/env-check.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'env:switch', group: 'Configuration', description: 'Make .env.<env> the active .env, keeping a backup of the current one', json: ['EnvSwitchJson'] },
  args: {
    env: { type: 'positional', description: 'The environment: .env.<env> becomes .env (staging, production, testing...)', valueHint: 'env' },
    ...cwdArg,
    ...jsonArg,
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(args.env) || args.env === 'example' || args.env.startsWith('backup')) {
      throw new CliError('E_BAD_ARGUMENTS', `"${args.env}" is not an environment name`, { hint: 'letters, digits, . _ -; for example svc env:switch staging' })
    }
    const source = join(project.root, `.env.${args.env}`)
    if (!existsSync(source)) {
      const available = readdirSync(project.root)
        .filter((name) => /^\.env\.[A-Za-z0-9]/.test(name) && !/^\.env\.(example|backup)/.test(name))
        .map((name) => name.slice(5))
      throw new CliError('E_NO_ENV_FILE', `${source} does not exist`, {
        hint: available.length > 0 ? `environments here: ${available.join(', ')}` : `create .env.${args.env} (copy .env.example) first`,
      })
    }
    let backup: string | null = null
    if (existsSync(project.envFile)) {
      backup = backupEnvFile(project.root, project.envFile)
    }
    copyFileSync(source, project.envFile)
    chmodSync(project.envFile, 0o600)
    const problems = checkEnvironment(project)
    if (args.json) return json({ environment: args.env, source, target: project.envFile, backup })
    printLine(io, `${basename(source)} is now the active .env${backup ? ` (the previous one is kept as ${basename(backup)})` : ''}.`)
    const errors = problems.filter((problem) => problem.level === 'error')
    if (errors.length > 0) printNote(io, `It has ${errors.length} problem${errors.length === 1 ? '' : 's'} (${errors.map((problem) => problem.variable).join(', ')}): svc env:check says which.`)
    if (existsSync(configCachePath(project))) printNote(io, 'A config cache exists and still holds the previous settings: svc config:cache (or svc config:clear).')
  },
})
