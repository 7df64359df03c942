/**
 * What a request schema makes of a body, as the handler receives it: a
 * schema that transforms (`v.trim()`, `v.toLowerCase()`, `utcTimestamp()`)
 * stores and answers its output, not what was sent, so a test comparing the
 * answer with the body it sent compares with this.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { checkWith } from '../validation/validate.ts'

/**
 * The schema's output for `body`, validated as a request's is; an Error
 * naming each refused field when the schema refuses it (a test's own body
 * that is not valid is the test's bug, said at once).
 *
 * @example
 * expect(created.body.data).toMatchObject(await schemaOutput(ProductRequest, valid))
 */
export async function schemaOutput<S extends StandardSchemaV1>(schema: S, body: unknown): Promise<StandardSchemaV1.InferOutput<S>> {
  const result = await checkWith(schema, body)
  if (result.ok) return result.value
  throw new Error(`schemaOutput: the schema refuses the body: ${JSON.stringify(result.errors)}`)
}
