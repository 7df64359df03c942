/** SHA-256 and random tokens from WebCrypto (every fetch runtime has them). */

export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))
  let hex = ''
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0')
  return hex
}

/** `bytes` random bytes as base64url (32 bytes: 43 characters, 256 bits). */
export function randomToken(bytes = 32): string {
  let binary = ''
  for (const byte of crypto.getRandomValues(new Uint8Array(bytes))) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}
