/** Validators of the contract's documents, from cli/contract/schemas.json (generated from its types). */
import { Ajv, type ValidateFunction } from 'ajv'
import schemas from '../../cli/contract/schemas.json' with { type: 'json' }
import type { ContractDocuments } from '../../cli/contract/index.ts'

export const contractAjv = new Ajv({ allErrors: true, strict: false })
contractAjv.addSchema(schemas, 'contract')

/** The validator of one contract document (`RouteListJson`...). */
export function contractValidator(name: keyof ContractDocuments | 'TraceRecordJson'): ValidateFunction {
  const validate = contractAjv.getSchema(`contract#/definitions/${name}`)
  if (validate === undefined) throw new Error(`cli/contract/schemas.json has no ${name}: run npm run contract:schemas`)
  return validate
}
