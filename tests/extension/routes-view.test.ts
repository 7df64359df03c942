/**
 * The Routes view when there are no routes to show: the error row says why
 * with the CLI's fix, and a click goes somewhere that shows all of it (a
 * side bar row is one truncated line).
 */
import { describe, expect, it, vi } from 'vitest'

vi.mock('vscode', async () => (await import('./vscode-tree-fake.ts')).vscodeTreeFake)

const { RouteSource, RoutesTreeProvider } = await import('../../extension/src/routes-view.ts')
const { SvcError } = await import('../../extension/src/svc-error.ts')

/** A client whose route request fails with `error` (the source only uses these two members). */
const failing = (error: Error) => ({ onRoutesChanged: () => ({ dispose: () => undefined }), request: async () => Promise.reject(error) }) as never

async function errorRow(error: Error) {
  const source = new RouteSource(failing(error))
  await source.refresh()
  const tree = new RoutesTreeProvider(source, () => '/w')
  const nodes = tree.getChildren()
  expect(nodes).toHaveLength(1)
  return tree.getTreeItem(nodes[0]!) as unknown as { label: string; tooltip: string; command?: { command: string } }
}

describe('RoutesTreeProvider, no routes', () => {
  it('an app that does not load: the message with its fix, and a click opens the Problems panel (its diagnostic links the line)', async () => {
    const load = new SvcError("Cannot load the app: Cannot find module '../app/does-not-exist.ts' Require stack: - /w/routes/api.ts", 'E_APP_LOAD', 'fix the error above in your routes or kernel (SVC_DEBUG=1 shows the stack)')
    const row = await errorRow(load)
    // Before: the message only (the fix was dropped), and a click did nothing.
    expect(row.tooltip).toBe(`${load.message} (fix: fix the error above in your routes or kernel (SVC_DEBUG=1 shows the stack))`)
    expect(row.label).toBe(row.tooltip)
    expect(row.command?.command).toBe('workbench.actions.view.problems')
  })

  it('another failure (the server not reachable): a click shows the svc output', async () => {
    const row = await errorRow(new Error('Connection got disposed.'))
    expect(row.tooltip).toBe('Connection got disposed.')
    expect(row.command?.command).toBe('svc.showOutput')
  })
})
