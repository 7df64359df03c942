import { defineCommand } from '../../command/define.ts'
import { generatorArgs, nameArg } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

export default defineCommand({
  meta: { name: 'make:event', group: 'Generators', description: 'An event class, emitted with emit(new Event(...)) (app/events)', json: ['MakeJson'] },
  args: {
    ...nameArg,
    ...generatorArgs,
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.event(String(args.name)), [`svc make:listener <Name> --event=${String(args.name)}`])
  },
})
