/**
 * URL redaction: hosted RPC providers put credentials in the userinfo (`user:pass@`) and in
 * query values (`?apikey=…`). Every URL that is logged, put in an API body or rendered goes
 * through {@link redactUrl} (one URL) or {@link redactUrlsIn} (free text such as an error
 * message that quotes a URL). Dependency-free: shared by the keeper, the server and the
 * browser bundle.
 *
 * @module
 */

/** What a query value is replaced with. */
export const REDACTED_VALUE = "REDACTED";

// A URL inside text: scheme, "://", then anything up to whitespace, a quote, an angle
// bracket, a backslash or a closing parenthesis/bracket followed by a non-URL character.
const URL_IN_TEXT = /\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s"'<>\\`]+/g;
// Userinfo: everything after "://" up to the LAST "@" before the path (greedy, so a password
// holding "@" goes too).
const USERINFO = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)[^/?#]*@/;

/**
 * A URL with no userinfo, every query value replaced by `REDACTED` (names kept, bare
 * parameters redacted) and no fragment. Works on text that does not parse as a URL too.
 *
 * `http://user:pass@host:8000/rpc?apikey=k&x=1#f` → `http://host:8000/rpc?apikey=REDACTED&x=REDACTED`
 */
export function redactUrl(url: string): string {
  let s = url.replace(USERINFO, "$1");
  const hash = s.indexOf("#");
  if (hash >= 0) s = s.slice(0, hash);
  const q = s.indexOf("?");
  if (q < 0) return s;
  const query = s.slice(q + 1);
  if (query === "") return s.slice(0, q);
  const parts = query.split(/[&;]/).filter((p) => p !== "").map((p) => {
    const eq = p.indexOf("=");
    return eq >= 0 ? `${p.slice(0, eq)}=${REDACTED_VALUE}` : REDACTED_VALUE;
  });
  return `${s.slice(0, q)}?${parts.join("&")}`;
}

/** True when {@link redactUrl} would change `url` (it carries credentials or a query). */
export function urlHasSecrets(url: string): boolean {
  return redactUrl(url) !== url.replace(/#.*$/, "");
}

/** Redacts every URL found in free text (log lines, error messages, JSON). */
export function redactUrlsIn(text: string): string {
  if (!text.includes("://")) return text;
  return text.replace(URL_IN_TEXT, (u) => {
    // Keep sentence punctuation that ended up glued to the URL outside the redaction.
    const m = /[).,;:\]]+$/.exec(u);
    const tail = m ? m[0] : "";
    const core = tail ? u.slice(0, -tail.length) : u;
    return redactUrl(core) + tail;
  });
}

/**
 * A URL safe to hand to a browser: no userinfo, no query, no fragment (a browser's `fetch`
 * refuses URLs with credentials anyway, and a query key of the operator's must not leak).
 */
export function publicUrl(url: string): string {
  return url.replace(USERINFO, "$1").replace(/[?#].*$/, "");
}

/**
 * The secret parts of a URL (the username, password and every query value), decoded, for an
 * exact-string scrub of text that quotes them outside a URL. Parts shorter than `minLength`
 * are skipped: scrubbing "1" from every log line would mangle it.
 */
export function urlSecrets(url: string, minLength = 6): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const out = new Set<string>();
  const add = (v: string) => {
    if (v.length < minLength) return;
    out.add(v);
    try {
      const d = decodeURIComponent(v);
      if (d.length >= minLength) out.add(d);
    } catch { /* not percent-encoded text */ }
  };
  add(u.username);
  add(u.password);
  for (const [k, v] of u.searchParams) {
    add(v);
    if (v === "") add(k);
  }
  return [...out];
}
