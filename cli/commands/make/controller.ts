import { defineCommand } from '../../command/define.ts'
import { fieldsArg, generatorArgs, nameArg } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

export default defineCommand({
  meta: { name: 'make:controller', group: 'Generators', description: 'A controller: route handlers (app/controllers)', json: ['MakeJson'] },
  args: {
    ...nameArg,
    ...generatorArgs,
    ...fieldsArg,
    resource: { type: 'boolean', description: 'The five resource handlers, with their request schema and resource' },
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.controller(String(args.name), { resource: args.resource, fields: args.fields }), ['attach the handlers in routes/api.ts'])
  },
})
