/**
 * The client's address. The runtime adapter knows the socket peer (conn-info.ts); a proxy's
 * X-Forwarded-For is believed only when that peer is a configured trusted
 * proxy, and then the right-most address that is not itself trusted wins
 * (the left-most entries are whatever the client chose to send). `*` trusts
 * any peer as one proxy, never more: the right-most entry, the address that
 * proxy saw, is the client (trusting every hop would hand the choice to the
 * client, and with it the per-address throttles).
 */

export function clientAddress(request: Request, peer: string | undefined, trustedProxies: readonly string[]): string | undefined {
  if (peer === undefined || trustedProxies.length === 0 || !isTrusted(peer, trustedProxies)) return peer
  const forwarded = request.headers.get('x-forwarded-for')
  if (forwarded === null) return peer
  const hops = forwarded.split(',').map((hop) => hop.trim()).filter((hop) => hop !== '')
  if (trustedProxies.includes('*')) return hops.at(-1) ?? peer
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!isTrusted(hops[i]!, trustedProxies)) return hops[i]
  }
  return hops[0] ?? peer
}

function isTrusted(address: string, trustedProxies: readonly string[]): boolean {
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address
  return trustedProxies.some((proxy) => proxy === '*' || proxy === address || proxy === plain)
}
