import { defineCommand } from 'citty'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { generateSecret, setEnvValue } from '../../../framework/node/index.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printJson, printLine } from '../../output/print.ts'
import { findProject } from '../../project/project.ts'

export interface KeyGenerateJson {
  /** Only with --show: the secret itself. */
  key: string | null
  written: string | null
}

export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    show: { type: 'boolean', description: 'Print the key instead of writing it to .env', default: false },
  },
  run({ args }) {
    const key = generateSecret()
    if (args.show) {
      if (args.json) return printJson({ key, written: null } satisfies KeyGenerateJson)
      return printLine(key)
    }
    const project = findProject(args.cwd)
    const text = existsSync(project.envFile) ? readFileSync(project.envFile, 'utf8') : ''
    writeFileSync(project.envFile, setEnvValue(text, 'JWT_SECRET', key), { mode: 0o600 })
    if (args.json) return printJson({ key: null, written: project.envFile } satisfies KeyGenerateJson)
    printLine(`JWT_SECRET written to ${project.envFile} (${key.length} characters). Tokens signed with the old key are now invalid.`)
  },
})
