import { defineCommand } from '../../command/define.ts'
import { fieldsArg, generatorArgs, nameArg } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

export default defineCommand({
  meta: { name: 'make:request', group: 'Generators', description: 'A request schema, declared on routes with .body() (app/requests)', json: ['MakeJson'] },
  args: {
    ...nameArg,
    ...generatorArgs,
    ...fieldsArg,
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.request(String(args.name), { fields: args.fields }))
  },
})
