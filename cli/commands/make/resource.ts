import { defineCommand } from '../../command/define.ts'
import { fieldsArg, generatorArgs, nameArg } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

export default defineCommand({
  meta: { name: 'make:resource', group: 'Generators', description: 'A resource: the response shape and its transformer (app/resources)', json: ['MakeJson'] },
  args: {
    ...nameArg,
    ...generatorArgs,
    ...fieldsArg,
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.resource(String(args.name), { fields: args.fields }), [])
  },
})
