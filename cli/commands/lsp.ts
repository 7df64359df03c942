import { defineCommand } from 'citty'
import { CliError } from '../output/cli-error.ts'
import { startLanguageServer } from '../lsp/server.ts'

/** `svc lsp --stdio`: the language server the VS Code extension starts (docs/vscode-extension.md). */
export default defineCommand({
  args: {
    stdio: { type: 'boolean', description: 'Talk LSP over stdin/stdout (the only transport)', default: false },
  },
  run({ args }) {
    if (!args.stdio) {
      throw new CliError('E_BAD_ARGUMENTS', 'svc lsp speaks the Language Server Protocol over stdio only', {
        hint: 'run svc lsp --stdio (editors start it themselves; see docs/vscode-extension.md)',
      })
    }
    startLanguageServer()
    // The connection keeps the process alive; it exits when the client sends exit.
  },
})
