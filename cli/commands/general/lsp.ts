import { defineCommand } from '../../command/define.ts'
import { startLanguageServer } from '../../lsp/server.ts'
import { CliError } from '../../output/cli-error.ts'

/** `svc lsp --stdio`: the language server the VS Code extension starts (docs/vscode-extension.md). */
export default defineCommand({
  meta: { name: 'lsp', group: 'Editor', description: 'Language server for editors (the VS Code extension starts it)' },
  args: {
    stdio: { type: 'boolean', description: 'Talk LSP over stdin/stdout (the only transport)' },
  },
  async run({ args, io }) {
    if (!args.stdio) {
      throw new CliError('E_BAD_ARGUMENTS', 'svc lsp speaks the Language Server Protocol over stdio only', {
        hint: 'run svc lsp --stdio (editors start it themselves; see docs/vscode-extension.md)',
      })
    }
    startLanguageServer()
    // The connection ends the process when the client sends `exit`; a signal ends it too.
    await new Promise((resolve) => io.signal.addEventListener('abort', resolve, { once: true }))
  },
})
