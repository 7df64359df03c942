import { defineCommand } from '../../command/define.ts'
import { generatorArgs, nameArg } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

export default defineCommand({
  meta: { name: 'make:test', group: 'Generators', description: 'A test file that runs the app in process (tests)', json: ['MakeJson'] },
  args: {
    ...nameArg,
    ...generatorArgs,
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.test(String(args.name)), ['npm test'])
  },
})
