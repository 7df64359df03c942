/**
 * The contract's JSON Schemas (draft-07), generated from its TypeScript types
 * (cli/contract/index.ts): the types are the one declaration, the schemas
 * follow them. `npm run contract:schemas` writes cli/contract/schemas.json;
 * tests/contract checks that the file is current and validates every
 * command's `--json` output against it.
 */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createGenerator } from 'ts-json-schema-generator'

export const SCHEMAS_FILE = fileURLToPath(new URL('../cli/contract/schemas.json', import.meta.url))

export function generateContractSchemas(): string {
  const generator = createGenerator({
    path: fileURLToPath(new URL('../cli/contract/index.ts', import.meta.url)),
    tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)),
    type: '*',
    expose: 'export',
    topRef: false,
    jsDoc: 'basic',
    sortProps: true,
    // Exact documents: a field a command prints but the contract does not declare fails the tests.
    additionalProperties: false,
    // `npm run typecheck` checks the types; the generator only reads them.
    skipTypeCheck: true,
  })
  return `${JSON.stringify(generator.createSchema('*'), null, 2)}\n`
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMAS_FILE, generateContractSchemas())
  console.log(`wrote ${SCHEMAS_FILE}`)
}
