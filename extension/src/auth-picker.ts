/**
 * "As whom" a request is replayed or sent: a user seen in the traces (the
 * CLI signs a fresh token for them: `replay --as=<email>`), a token the user
 * saved (kept in VS Code's secret storage, sent as `--header`), or none.
 */
import * as vscode from 'vscode'
import { SvcRequest } from '../../cli/contract/lsp.ts'
import type { SvcClient } from './svc-client.ts'
import { describeError } from './svc-error.ts'

export type Auth = { kind: 'user'; email: string } | { kind: 'token'; name: string; token: string } | { kind: 'none' }

interface SavedToken {
  name: string
  token: string
}

const TOKENS_KEY = 'svc.savedTokens'

export class SavedTokens {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  async all(): Promise<SavedToken[]> {
    try {
      const parsed = JSON.parse((await this.secrets.get(TOKENS_KEY)) ?? '[]') as unknown
      return Array.isArray(parsed) ? parsed.filter((entry): entry is SavedToken => typeof entry?.name === 'string' && typeof entry?.token === 'string') : []
    } catch {
      return []
    }
  }

  async save(name: string, token: string): Promise<void> {
    const others = (await this.all()).filter((entry) => entry.name !== name)
    await this.secrets.store(TOKENS_KEY, JSON.stringify([{ name, token }, ...others]))
  }
}

/**
 * The CLI's arguments for an auth: `as`, a `header`, or `anonymous` for none (without it the CLI signs in as the user
 * who made the request when the trace's token was redacted).
 */
export function authParams(auth: Auth): { as?: string; header?: string[]; anonymous?: true } {
  if (auth.kind === 'user') return { as: auth.email }
  if (auth.kind === 'token') return { header: [`Authorization: Bearer ${auth.token}`] }
  return { anonymous: true }
}

export function describeAuth(auth: Auth): string {
  return auth.kind === 'user' ? `as ${auth.email}` : auth.kind === 'token' ? `with the saved token “${auth.name}”` : 'without a token'
}

type AuthItem = vscode.QuickPickItem & { auth?: Auth; save?: true }

/** Asks as whom; undefined when the user cancels. */
export async function pickAuth(client: SvcClient, tokens: SavedTokens, title: string): Promise<Auth | undefined> {
  const items: AuthItem[] = []
  try {
    const { users } = await client.request(SvcRequest.traceUsers, {})
    const known = users.filter((user) => user.email !== null)
    if (known.length > 0) items.push({ label: 'Users seen in the traces', kind: vscode.QuickPickItemKind.Separator })
    for (const user of known) {
      items.push({
        label: `$(person) ${user.email}`,
        description: [user.name, user.role, `${user.traces} trace${user.traces === 1 ? '' : 's'}`].filter(Boolean).join(' · '),
        detail: 'A fresh token signed by the CLI (development only)',
        auth: { kind: 'user', email: user.email! },
      })
    }
  } catch (error) {
    items.push({ label: '$(warning) Users unavailable', description: describeError(error) })
  }
  const saved = await tokens.all()
  items.push({ label: 'Saved tokens', kind: vscode.QuickPickItemKind.Separator })
  for (const entry of saved) items.push({ label: `$(key) ${entry.name}`, description: `${entry.token.slice(0, 12)}…`, auth: { kind: 'token', name: entry.name, token: entry.token } })
  items.push({ label: '$(add) Save a token…', description: 'kept in VS Code’s secret storage', save: true })
  items.push({ label: '$(circle-slash) Without a token', auth: { kind: 'none' } })

  const picked = await vscode.window.showQuickPick(items, { title, placeHolder: 'As whom?', matchOnDescription: true })
  if (picked === undefined) return undefined
  if (picked.save) {
    const token = await vscode.window.showInputBox({ title: 'svc: a bearer token', prompt: 'The access token (without “Bearer”)', password: true, ignoreFocusOut: true })
    if (!token) return undefined
    const name = await vscode.window.showInputBox({ title: 'svc: name this token', value: 'my token', ignoreFocusOut: true })
    if (!name) return undefined
    await tokens.save(name, token.trim().replace(/^Bearer\s+/i, ''))
    return { kind: 'token', name, token: token.trim().replace(/^Bearer\s+/i, '') }
  }
  return picked.auth
}
