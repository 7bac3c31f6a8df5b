/** JSON encoding rules of the keeper API. */
import { redactSecrets } from "../log/redact.ts";

/**
 * Encodes a value as JSON that is always valid and secret-free: bigint → decimal string,
 * non-finite numbers → null, Date → ISO 8601, then the secret-seed redaction pass.
 */
export function encodeJson(value: unknown): string {
  const text = JSON.stringify(value, (_k, v) => {
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "number" && !Number.isFinite(v)) return null;
    return v;
  });
  return redactSecrets(text ?? "null");
}

/** A JSON response with the API's headers. */
export function jsonResponse(
  value: unknown,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return new Response(encodeJson(value), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** Amount (7-decimal integer units) as a decimal string; null stays null. */
export function amount(v: bigint | null | undefined): string | null {
  return v == null ? null : v.toString();
}

/** ISO 8601 time; null stays null. */
export function iso(d: Date | null | undefined): string | null {
  return d == null ? null : d.toISOString();
}

/** A finite number or null. */
export function finite(n: number | null | undefined): number | null {
  return n != null && Number.isFinite(n) ? n : null;
}
