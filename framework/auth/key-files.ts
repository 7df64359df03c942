/**
 * The RS256 key files of `storage/keys/` (`svc key:generate --rs256` and
 * `svc new --jwt=RS256` write them), read through the runtime's own file
 * reader: the Deno and Bun adapters' `readJwtKeyFiles`, as Node's reads them
 * for `svc serve`. Without it an RS256 project on Deno or Bun stopped on
 * "JWT_ALGORITHM=RS256 needs a key pair" with the pair on disk.
 */
import { PRIVATE_KEY_FILE, PUBLIC_KEY_FILE, type JwtKeyMaterial } from './keys.ts'

/** The file's text, or undefined when it does not exist; any other failure (no permission) is thrown. */
export type ReadTextFile = (path: string) => Promise<string | undefined>

export async function readJwtKeyFilesWith(storageDir: string, read: ReadTextFile): Promise<JwtKeyMaterial> {
  const dir = `${storageDir.replace(/\/+$/, '')}/keys`
  const [privateKey, publicKey] = await Promise.all([read(`${dir}/${PRIVATE_KEY_FILE}`), read(`${dir}/${PUBLIC_KEY_FILE}`)])
  return { ...(privateKey === undefined ? {} : { privateKey }), ...(publicKey === undefined ? {} : { publicKey }) }
}
