/**
 * Secret redaction: the last guard before any text leaves the process (stderr, SSE, API, metrics).
 *
 * Two kinds of secrets: Stellar secret seeds, and credentials inside URLs (userinfo and query
 * values, where hosted RPC providers put API keys — see `util/url_redact.ts`). Every URL found in
 * the text is redacted, and the exact credential strings of the configured endpoints
 * ({@link registerUrlSecrets}) are scrubbed wherever they appear, even outside a URL.
 *
 * A Stellar secret seed is `S` + 55 base32 characters (56 in all). A run of exactly 56 base32
 * characters starting with `S` is redacted even when its checksum is wrong (a mistyped secret is
 * still mostly secret); inside longer base32 runs (e.g. a muxed `M…` address) only substrings that
 * pass `StrKey.isValidEd25519SecretSeed` are redacted, so ordinary addresses are never mangled.
 */
import { StrKey } from "@stellar/stellar-sdk";
import { redactUrlsIn, urlSecrets } from "@vigil/util/url_redact";

/** What a redacted secret seed is replaced with. */
export const REDACTED = "[REDACTED]";

const BASE32_RUN = /[A-Z2-7]{56,}/g;
// Every seed contains this; ordinary G…/C… addresses almost never do (an `S` inside an address is
// followed by fewer than 55 base32 characters unless more base32 text is glued on).
const CANDIDATE = /S[A-Z2-7]{55}/;

/** Credential strings of the configured endpoints (process-wide, like the secrets they guard). */
const known = new Set<string>();

/**
 * Registers the credentials of a configured URL (username, password, query values of at least 6
 * characters) so {@link redactSecrets} scrubs them anywhere, e.g. in an error message that quotes
 * a key without its URL. The keeper calls it for SOROBAN_RPC and HORIZON_URL at start-up.
 */
export function registerUrlSecrets(url: string): void {
  for (const s of urlSecrets(url)) known.add(s);
}

/**
 * Replaces every Stellar secret seed found in `text` with {@link REDACTED}, redacts every URL's
 * userinfo and query values, and scrubs the registered endpoint credentials.
 */
export function redactSecrets(text: string): string {
  let out = redactUrlsIn(text);
  for (const s of known) if (out.includes(s)) out = out.replaceAll(s, REDACTED);
  // Fast path: no candidate at all (the common case for log lines and JSON bodies).
  if (!CANDIDATE.test(out)) return out;
  return out.replace(BASE32_RUN, redactRun);
}

function redactRun(run: string): string {
  if (run.length === 56) return run[0] === "S" ? REDACTED : run;
  let out = "";
  let i = 0;
  while (i < run.length) {
    if (run[i] === "S" && i + 56 <= run.length) {
      const candidate = run.slice(i, i + 56);
      if (StrKey.isValidEd25519SecretSeed(candidate)) {
        out += REDACTED;
        i += 56;
        continue;
      }
    }
    out += run[i];
    i++;
  }
  return out;
}

/** True when `text` still contains something {@link redactSecrets} would replace. */
export function containsSecret(text: string): boolean {
  return redactSecrets(text) !== text;
}
