import { defineCommand } from '../../command/define.ts'
import { fieldsArg, generatorArgs, nameArg } from '../../generators/args.ts'
import { planCrud } from '../../generators/crud.ts'
import { runGenerator } from '../../generators/run.ts'

/** A working resource: model, migration, request schemas, resource, controller, routes, tests (docs/generators.md). */
export default defineCommand({
  meta: {
    name: 'make:crud',
    group: 'Generators',
    description: 'A resource end to end: model, migration, schemas, controller, routes, tests',
    json: ['MakeJson'],
  },
  args: {
    ...nameArg,
    ...generatorArgs,
    ...fieldsArg,
    simple: { type: 'boolean', description: 'Without the service and repository layers' },
    seed: { type: 'boolean', description: 'Also a factory and a seeder with sample rows' },
    public: { type: 'boolean', description: 'Without the auth middleware on its routes' },
    owned: { type: 'boolean', description: 'Each row is its creator\'s (user_id from the token): others get 404' },
  },
  run({ args, io, json }) {
    return runGenerator(
      io,
      args,
      json,
      (generator) => planCrud(generator, String(args.name), { fields: args.fields, simple: args.simple, seed: args.seed, public: args.public, owned: args.owned }),
    )
  },
})
