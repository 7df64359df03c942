import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { generateRsaKeyPair } from '../../../framework/index.ts'
import { generateSecret, readJwtKeyFiles, setEnvValue, writeJwtKeyFiles } from '../../../framework/node/index.ts'
import { defineCommand, type ArgsDef, type CommandContext } from '../../command/define.ts'
import type { KeyGenerateJson, KeyGenerateRs256Json } from '../../contract/index.ts'
import { CliError } from '../../output/cli-error.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine } from '../../output/print.ts'
import { projectFor, type Project } from '../../project/project.ts'

const keyArgs = {
  ...cwdArg,
  ...jsonArg,
  show: { type: 'boolean', description: 'Print the key instead of writing it to .env' },
  rs256: { type: 'boolean', description: 'Create an RS256 key pair in storage/keys/ and set JWT_ALGORITHM=RS256' },
  force: { type: 'boolean', description: 'With --rs256: replace an existing key pair' },
} as const satisfies ArgsDef

export default defineCommand({
  meta: {
    name: 'key:generate',
    group: 'Security',
    description: 'Generate a JWT secret into .env, or an RS256 key pair into storage/keys',
    json: ['KeyGenerateJson', 'KeyGenerateRs256Json'],
  },
  args: keyArgs,
  async run(context) {
    const { args, io, json } = context
    if (args.rs256) return generateRs256(context)
    const key = generateSecret()
    if (args.show) {
      if (args.json) return json({ key, written: null } satisfies KeyGenerateJson)
      return printLine(io, key)
    }
    const project = projectFor(io, args.cwd)
    const env = envText(project)
    // Only a secret .env held signed tokens: .env.example's value (empty, or a placeholder) signed none.
    const replaced = existsSync(project.envFile) && (/^[ \t]*JWT_SECRET[ \t]*=[ \t]*(.*)$/m.exec(env.text)?.[1]?.trim() ?? '') !== ''
    writeFileSync(project.envFile, setEnvValue(env.text, 'JWT_SECRET', key), { mode: 0o600 })
    // `mode` applies only when the file is created; an existing .env holding a secret is made private too.
    chmodSync(project.envFile, 0o600)
    if (args.json) return json({ key: null, written: project.envFile } satisfies KeyGenerateJson)
    const what = env.from === undefined ? '' : `, in a new .env made from ${env.from}`
    printLine(io, `JWT_SECRET written to ${project.envFile} (${key.length} characters)${what}.${replaced ? ' Tokens signed with the old key are now invalid.' : ''}`)
  },
})

/**
 * The .env to write the key into. A missing one starts from .env.example, as the first `svc serve` makes it:
 * a .env of the key alone kept `svc serve` from ever making it (it exists), and `svc env:check` then
 * warned about every setting .env.example lists.
 */
function envText(project: Project): { text: string; from?: string } {
  if (existsSync(project.envFile)) return { text: readFileSync(project.envFile, 'utf8') }
  if (existsSync(project.envExampleFile)) return { text: readFileSync(project.envExampleFile, 'utf8'), from: project.envExampleFile }
  return { text: '' }
}

async function generateRs256({ args, io, json }: CommandContext<typeof keyArgs, 'KeyGenerateJson' | 'KeyGenerateRs256Json'>): Promise<void> {
  const pair = await generateRsaKeyPair()
  if (args.show) {
    if (args.json) {
      return json({
        algorithm: 'RS256',
        private_key: pair.privateKey,
        public_key: pair.publicKey,
        private_key_file: null,
        public_key_file: null,
        written: null,
      } satisfies KeyGenerateRs256Json)
    }
    return printLine(io, `${pair.privateKey}${pair.publicKey}`.trimEnd())
  }
  const project = projectFor(io, args.cwd)
  if (readJwtKeyFiles(project.storageDir).privateKey !== undefined && !args.force) {
    throw new CliError('E_KEY_EXISTS', `An RS256 key pair already exists in ${project.storageDir}/keys`, {
      hint: 'pass --force to replace it (every token signed with the old key becomes invalid)',
    })
  }
  const files = writeJwtKeyFiles(project.storageDir, pair)
  writeFileSync(project.envFile, setEnvValue(envText(project).text, 'JWT_ALGORITHM', 'RS256'), { mode: 0o600 })
  if (args.json) {
    return json({
      algorithm: 'RS256',
      private_key: null,
      public_key: null,
      private_key_file: files.privateKey,
      public_key_file: files.publicKey,
      written: project.envFile,
    } satisfies KeyGenerateRs256Json)
  }
  printLine(io, `RS256 key pair written to ${files.privateKey} and ${files.publicKey}; JWT_ALGORITHM=RS256 set in ${project.envFile}.`)
  printLine(io, 'The public key is served at GET /.well-known/jwks.json. Keep the private key out of version control.')
}
