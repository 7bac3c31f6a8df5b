/**
 * The pages' Content-Security-Policy. Scripts only from this origin (the island bundles and
 * their lazily imported chunks: the Stellar SDK, the wallet kit); no inline script runs — the
 * page configuration is a `type="application/json"` data block, which CSP does not execute.
 * Network access only to this origin, the public RPC and the keeper API the pages use.
 *
 * Inline styles stay allowed: server-rendered `style` attributes (bar widths) and the wallet
 * kit's generated stylesheet need them, and CSS cannot run script. Images may come from any
 * https origin (the wallet kit's wallet icons live on its CDN).
 *
 * @module
 */
import type { PublicConfig } from "./data/config.ts";

function originOf(url: string): string | null {
  try {
    const o = new URL(url).origin;
    return o === "null" ? null : o;
  } catch {
    return null;
  }
}

/** The policy for pages configured with `config`. */
export function contentSecurityPolicy(config: PublicConfig): string {
  const connect = new Set(["'self'"]);
  for (const u of [config.network.rpcUrl, config.apiUrl]) {
    const o = u ? originOf(u) : null;
    if (o) connect.add(o);
  }
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    "font-src 'self' data:",
    `connect-src ${[...connect].join(" ")}`,
    // Wallets that open their own signing frame (https only).
    "frame-src 'self' https:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
