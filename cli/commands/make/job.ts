import { defineCommand } from '../../command/define.ts'
import { generatorArgs, nameArg } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

export default defineCommand({
  meta: { name: 'make:job', group: 'Generators', description: 'A queued job, run by queue:work (app/jobs)', json: ['MakeJson'] },
  args: {
    ...nameArg,
    ...generatorArgs,
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.job(String(args.name)))
  },
})
