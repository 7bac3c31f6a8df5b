/** Turning log fields into JSON-safe values, and lines into JSON or human text. */
import { Keypair } from "@stellar/stellar-sdk";
import { redactSecrets } from "./redact.ts";

/** A JSON value. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

const MAX_DEPTH = 6;
const MAX_STRING = 8192;

/**
 * Converts any value into a JSON-safe one: bigint → decimal string, Date → ISO 8601, non-finite
 * numbers → their name as a string, Error → {name, message}, Keypair → its public key (never the
 * secret), byte arrays → a length note, strings redacted and capped. Cycles and deep nesting are cut.
 */
export function toJsonValue(value: unknown, depth = 0, seen = new WeakSet<object>()): JsonValue {
  switch (typeof value) {
    case "string":
      return cap(redactSecrets(value));
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "bigint":
      return value.toString();
    case "boolean":
      return value;
    case "undefined":
      return null;
    case "symbol":
      return value.toString();
    case "function":
      return `[function ${value.name || "anonymous"}]`;
  }
  if (value === null) return null;
  const obj = value as object;
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? "Invalid Date" : obj.toISOString();
  // Also Keypairs of another SDK copy (blend-sdk pins its own): anything with publicKey()+secret().
  if (obj instanceof Keypair || isKeypairLike(obj)) return (obj as Keypair).publicKey();
  if (obj instanceof Error) return errorValue(obj, depth, seen);
  if (obj instanceof Uint8Array || obj instanceof ArrayBuffer) return `[${obj.byteLength} bytes]`;
  if (seen.has(obj)) return "[circular]";
  if (depth >= MAX_DEPTH) return "[nested]";
  seen.add(obj);
  try {
    if (Array.isArray(obj)) return obj.slice(0, 200).map((v) => toJsonValue(v, depth + 1, seen));
    if (obj instanceof Map) {
      const out: Record<string, JsonValue> = {};
      for (const [k, v] of obj) out[String(k)] = toJsonValue(v, depth + 1, seen);
      return out;
    }
    if (obj instanceof Set) return [...obj].map((v) => toJsonValue(v, depth + 1, seen));
    // Objects that know how to present themselves (e.g. Config's redacted toJSON).
    const maybeJson = (obj as { toJSON?: () => unknown }).toJSON;
    if (typeof maybeJson === "function") return toJsonValue(maybeJson.call(obj), depth + 1, seen);
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(obj)) {
      if (typeof v === "function") continue;
      out[k] = toJsonValue(v, depth + 1, seen);
    }
    return out;
  } finally {
    seen.delete(obj);
  }
}

function isKeypairLike(o: object): boolean {
  const k = o as { publicKey?: unknown; secret?: unknown };
  return typeof k.publicKey === "function" && typeof k.secret === "function";
}

function errorValue(err: Error, depth: number, seen: WeakSet<object>): JsonValue {
  const out: Record<string, JsonValue> = {
    name: err.name,
    message: cap(redactSecrets(err.message)),
  };
  const code = (err as { code?: unknown }).code;
  if (code !== undefined) out.code = toJsonValue(code, depth + 1, seen);
  if (err.cause !== undefined && depth < MAX_DEPTH) {
    out.cause = toJsonValue(err.cause, depth + 1, seen);
  }
  return out;
}

function cap(s: string): string {
  return s.length > MAX_STRING ? `${s.slice(0, MAX_STRING)}…(${s.length - MAX_STRING} more)` : s;
}

/** Collapses line breaks so one log line stays one line (SSE data, terminals). */
export function oneLine(s: string): string {
  return s.replace(/\r\n|\r|\n/g, " ⏎ ");
}

/** `key=value` rendering of one field for the human line. */
export function humanValue(v: JsonValue): string {
  if (v === null) return "null";
  if (typeof v === "string") {
    return v === "" || /[\s="\\]/.test(v) ? JSON.stringify(v) : v;
  }
  if (typeof v === "object") {
    // An Error rendered as its message reads better than a JSON object.
    if (!Array.isArray(v) && typeof v.message === "string" && typeof v.name === "string") {
      return JSON.stringify(`${v.name}: ${v.message}`);
    }
    return JSON.stringify(v);
  }
  return String(v);
}

const ADDRESS = /^[GCM][A-Z2-7]{55,68}$/;

/** A Stellar address shortened for people: `GB4Y…WYKQ`; anything else unchanged. */
export function shortAddress(a: string): string {
  return ADDRESS.test(a) ? `${a.slice(0, 4)}…${a.slice(-4)}` : a;
}

/**
 * 7-decimal token units as an amount for people, rounded half away from zero to 2 decimals with
 * thousands separators: `2052145678n` → `205.21`; `signed` adds `+` to non-negative amounts.
 */
export function peopleAmount(units: bigint, signed = false): string {
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const cents = (abs + 50_000n) / 100_000n;
  const whole = (cents / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const frac = (cents % 100n).toString().padStart(2, "0");
  const sign = neg && cents > 0n ? "-" : signed ? "+" : "";
  return `${sign}${whole}.${frac}`;
}

const ADDRESS_IN_TEXT = /\b[GC][A-Z2-7]{55}\b|\bM[A-Z2-7]{68}\b/g;

/** Every Stellar address in `text` shortened (`GB4Y…WYKQ`). */
export function shortenAddresses(text: string): string {
  return text.replace(ADDRESS_IN_TEXT, (a) => shortAddress(a));
}

/**
 * The default plain sentence of a log call: its message, and the message of its `err` field
 * when the message does not already say it (a failure line without its cause helps nobody).
 * With `shorten` (info and debug lines: what happened) addresses are shortened; warnings and
 * errors keep them whole, since the reader may have to act on them (fund this account).
 */
export function defaultPlain(
  msg: string,
  fields: Readonly<Record<string, JsonValue>>,
  shorten = false,
): string {
  const err = fields.err;
  let why: string | undefined;
  if (typeof err === "string") why = err;
  else if (err && typeof err === "object" && !Array.isArray(err)) {
    if (typeof err.message === "string") why = err.message;
  }
  const plain = why && !msg.includes(why) ? `${msg}: ${why}` : msg;
  return shorten ? shortenAddresses(plain) : plain;
}

/**
 * One log line as `LOG_FORMAT=text` writes it: the UTC time of day, the level unless it is
 * `info`, and the plain sentence (`12:32:08 keeper-1 filled GB4Y…WYKQ …`, `12:32:09 WARN …`).
 */
export function textLine(line: { ts: string; level: string; plain: string }): string {
  const time = line.ts.slice(11, 19);
  const level = line.level === "info" ? "" : `${line.level.toUpperCase()} `;
  return `${time} ${level}${line.plain}`;
}
