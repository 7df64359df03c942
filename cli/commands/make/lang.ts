import { defineCommand } from '../../command/define.ts'
import { generatorArgs } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

/** `lang/<locale>/<file>.ts`, added to lang/index.ts; app/kernel.ts words validation errors with it. */
export default defineCommand({
  meta: { name: 'make:lang', group: 'Generators', description: 'A language file for t(key, params) and validation messages (lang/<locale>)', json: ['MakeJson'] },
  args: {
    locale: { type: 'positional', description: 'The language tag: fr, pt-BR', valueHint: 'locale' },
    file: { type: 'positional', description: 'The file: validation (messages by rule), messages, ...', valueHint: 'file' },
    ...generatorArgs,
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.lang(String(args.locale), String(args.file)), ['translate the messages', 'send Accept-Language'])
  },
})
