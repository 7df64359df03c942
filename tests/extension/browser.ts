/** The Chromium the browser tests drive (Debian's package: apt-get install -y chromium). */
import { existsSync } from 'node:fs'

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
  if (!existsSync(path)) throw new Error(`Chromium not found at ${path}: apt-get install -y chromium (or set CHROMIUM_PATH)`)
  return path
}
