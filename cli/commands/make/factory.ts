import { defineCommand } from '../../command/define.ts'
import { fieldsArg, generatorArgs, nameArg } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

export default defineCommand({
  meta: { name: 'make:factory', group: 'Generators', description: 'A model factory: sample rows for seeders and tests (database/factories)', json: ['MakeJson'] },
  args: {
    ...nameArg,
    ...generatorArgs,
    ...fieldsArg,
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.factory(String(args.name), { fields: args.fields }), [`svc make:seeder ${String(args.name)}`])
  },
})
