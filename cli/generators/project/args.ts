/** The options `new` and `start` share: one per question the wizard asks, and where the project goes. */
import type { ArgsDef } from '../../command/define.ts'

export const projectArgs = {
  cwd: { type: 'string', description: 'Folder to create the project in (default: the current folder)', valueHint: 'dir' },
  database: { type: 'string', description: 'DATABASE_URL (empty, the default: the embedded file storage/database.sqlite)', valueHint: 'url' },
  jwt: { type: 'enum', options: ['HS256', 'RS256'], description: 'JWT signing algorithm (default HS256: a secret in .env; RS256: a key pair in storage/keys/)' },
  example: { type: 'string', description: 'An example resource made with make:crud, with sample rows (a name such as Post; new: none by default)', valueHint: 'Name|none' },
  svc: { type: 'string', description: "package.json's svc dependency (default ^<this svc's version>, or file:<checkout> when svc runs from one; a tarball or folder as file:<path>)", valueHint: 'spec' },
  json: { type: 'boolean', description: 'Print stable JSON on stdout' },
} as const satisfies ArgsDef
