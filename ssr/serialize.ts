/**
 * JSON for island props and the page's public config: bigint values survive the trip
 * (`{"$bigint":"123"}`), everything else is plain JSON.
 *
 * @module
 */

/** Serializes island props to JSON, encoding bigint values. */
export function stringifyProps(value: unknown): string {
  return JSON.stringify(
    value,
    (_k, v) => typeof v === "bigint" ? { $bigint: v.toString() } : v,
  );
}

/** Parses props written by {@link stringifyProps}. */
export function parseProps(text: string): Record<string, unknown> {
  return JSON.parse(text, (_k, v) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const keys = Object.keys(v);
      if (keys.length === 1 && keys[0] === "$bigint" && typeof v.$bigint === "string") {
        return BigInt(v.$bigint);
      }
    }
    return v;
  });
}

/** Escapes JSON for embedding inside a `<script type="application/json">` element. */
export function jsonForScript(value: unknown): string {
  return stringifyProps(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}
