/**
 * The one contract between the CLI, the language server and the VS Code
 * extension: the `--json` documents (types and JSON Schemas) and the
 * language server's custom requests. Imports nothing at run time.
 */
export * from './routes.ts'
export * from './traces.ts'
export * from './lsp.ts'
