/**
 * The resources a CRUD flow can run on: a collection path with `GET` (list)
 * and `POST` (create), and its member path `<collection>/{param}` with
 * `GET`, `PUT` (or `PATCH`) and `DELETE`, as `svc make:crud` registers
 * them. A resource whose routes need a role, a scope or an API key cannot be
 * run by the flow's freshly registered user: it is named in a warning.
 */
import type { OpenApiWarningJson } from '../contract/api-docs.ts'
import type { DescribedOperation } from './collection.ts'

/** The role a registered user has. */
const NEW_USER_ROLE = 'user'

export interface CrudResource {
  /** The collection path (`/api/v1/products`). */
  path: string
  /** Its last segment (`products`), for variable names. */
  name: string
  /** The member path's parameter (`id`). */
  param: string
  create: DescribedOperation
  read: DescribedOperation
  list: DescribedOperation
  update: DescribedOperation
  remove: DescribedOperation
}

export function crudResources(operations: readonly DescribedOperation[]): { resources: CrudResource[]; warnings: OpenApiWarningJson[] } {
  const at = (method: string, path: string) => operations.find((candidate) => candidate.method === method && candidate.path === path)
  const resources: CrudResource[] = []
  const warnings: OpenApiWarningJson[] = []
  for (const create of operations) {
    if (create.method !== 'post' || create.path.includes('{')) continue
    const list = at('get', create.path)
    const member = operations.find((candidate) => new RegExp(`^${escape(create.path)}/\\{[^/{}]+\\}$`).test(candidate.path))?.path
    if (list === undefined || member === undefined) continue
    const read = at('get', member)
    const update = at('put', member) ?? at('patch', member)
    const remove = at('delete', member)
    if (read === undefined || update === undefined || remove === undefined) continue
    const steps = { create, read, list, update, remove }
    const refused = Object.values(steps).find((step) => !flowUserMay(step))
    if (refused !== undefined) {
      warnings.push({
        method: refused.method.toUpperCase() as OpenApiWarningJson['method'],
        path: refused.path,
        part: 'path',
        field: '',
        message: `no CRUD flow for ${create.path}: ${refused.method.toUpperCase()} ${refused.path} needs a role, a scope or an API key the flow's user does not have`,
      })
      continue
    }
    const param = /\{([^}]+)\}$/.exec(member)![1]!
    resources.push({ path: create.path, name: create.path.split('/').at(-1)!.replace(/[^A-Za-z0-9_]/g, '_'), param, ...steps })
  }
  return { resources, warnings }
}

/** Whether a freshly registered user (role `user`, no API key) may call it. */
function flowUserMay(step: DescribedOperation): boolean {
  const security = (step.operation.security ?? []) as Array<Record<string, unknown>>
  if (security.some((requirement) => 'apiKeyAuth' in requirement)) return false
  const roles = step.operation['x-roles'] as string[] | undefined
  return (roles === undefined || roles.includes(NEW_USER_ROLE)) && step.operation['x-scopes'] === undefined
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
