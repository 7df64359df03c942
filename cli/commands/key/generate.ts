import { defineCommand } from 'citty'
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { generateRsaKeyPair } from '../../../framework/index.ts'
import { generateSecret, readJwtKeyFiles, setEnvValue, writeJwtKeyFiles } from '../../../framework/node/index.ts'
import { CliError } from '../../output/cli-error.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printJson, printLine } from '../../output/print.ts'
import { findProject } from '../../project/project.ts'

export interface KeyGenerateJson {
  /** Only with --show: the secret itself. */
  key: string | null
  written: string | null
}

/** `key:generate --rs256 --json`. */
export interface KeyGenerateRs256Json {
  algorithm: 'RS256'
  /** Only with --show: the PEM texts (nothing is written). */
  private_key: string | null
  public_key: string | null
  private_key_file: string | null
  public_key_file: string | null
  /** The .env file where JWT_ALGORITHM=RS256 was set. */
  written: string | null
}

export default defineCommand({
  args: {
    ...cwdArg,
    ...jsonArg,
    show: { type: 'boolean', description: 'Print the key instead of writing it to .env', default: false },
    rs256: {
      type: 'boolean',
      description: 'Create an RS256 key pair in storage/keys/ and set JWT_ALGORITHM=RS256',
      default: false,
    },
    force: { type: 'boolean', description: 'With --rs256: replace an existing key pair', default: false },
  },
  async run({ args }) {
    if (args.rs256) return generateRs256(args)
    const key = generateSecret()
    if (args.show) {
      if (args.json) return printJson({ key, written: null } satisfies KeyGenerateJson)
      return printLine(key)
    }
    const project = findProject(args.cwd)
    const text = existsSync(project.envFile) ? readFileSync(project.envFile, 'utf8') : ''
    writeFileSync(project.envFile, setEnvValue(text, 'JWT_SECRET', key), { mode: 0o600 })
    // `mode` applies only when the file is created; an existing .env holding a secret is made private too.
    chmodSync(project.envFile, 0o600)
    if (args.json) return printJson({ key: null, written: project.envFile } satisfies KeyGenerateJson)
    printLine(`JWT_SECRET written to ${project.envFile} (${key.length} characters). Tokens signed with the old key are now invalid.`)
  },
})

async function generateRs256(args: { cwd?: string; json: boolean; show: boolean; force: boolean }): Promise<void> {
  const pair = await generateRsaKeyPair()
  if (args.show) {
    if (args.json) {
      return printJson({
        algorithm: 'RS256',
        private_key: pair.privateKey,
        public_key: pair.publicKey,
        private_key_file: null,
        public_key_file: null,
        written: null,
      } satisfies KeyGenerateRs256Json)
    }
    return printLine(`${pair.privateKey}${pair.publicKey}`.trimEnd())
  }
  const project = findProject(args.cwd)
  if (readJwtKeyFiles(project.storageDir).privateKey !== undefined && !args.force) {
    throw new CliError('E_KEY_EXISTS', `An RS256 key pair already exists in ${project.storageDir}/keys`, {
      hint: 'pass --force to replace it (every token signed with the old key becomes invalid)',
    })
  }
  const files = writeJwtKeyFiles(project.storageDir, pair)
  const text = existsSync(project.envFile) ? readFileSync(project.envFile, 'utf8') : ''
  writeFileSync(project.envFile, setEnvValue(text, 'JWT_ALGORITHM', 'RS256'), { mode: 0o600 })
  if (args.json) {
    return printJson({
      algorithm: 'RS256',
      private_key: null,
      public_key: null,
      private_key_file: files.privateKey,
      public_key_file: files.publicKey,
      written: project.envFile,
    } satisfies KeyGenerateRs256Json)
  }
  printLine(`RS256 key pair written to ${files.privateKey} and ${files.publicKey}; JWT_ALGORITHM=RS256 set in ${project.envFile}.`)
  printLine('The public key is served at GET /.well-known/jwks.json. Keep the private key out of version control.')
}
