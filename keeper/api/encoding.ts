/**
 * Content coding of the API's JSON bodies: `Accept-Encoding` negotiation (RFC 9110 §12.5.3) and a
 * body that keeps its compressed forms, so a body is compressed once per coding, not per request.
 */
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/** A content coding the API sends. */
export type Coding = "br" | "gzip" | "identity";

/** Bodies smaller than this go out as they are: compressing them saves less than it costs. */
export const MIN_COMPRESS_BYTES = 1024;

// Brotli quality 4 compresses about as well as gzip -9 at gzip -6's speed; higher qualities cost
// several times more CPU for a few percent, and every rebuilt body pays it once.
const BROTLI_QUALITY = 4;
const GZIP_LEVEL = 6;

/**
 * The coding to answer with: the highest `q` among br and gzip (br on a tie: smaller), `*` counting
 * for codings not named, identity when neither is acceptable or the header is absent.
 */
export function negotiateCoding(acceptEncoding: string | null | undefined): Coding {
  if (!acceptEncoding) return "identity";
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/.exec(p);
      if (m) weight = Number(m[1]);
    }
    q.set(name.trim(), weight);
  }
  const of = (c: string) => q.get(c) ?? q.get("*") ?? 0;
  const br = of("br"), gzip = of("gzip");
  if (br <= 0 && gzip <= 0) return "identity";
  return br >= gzip ? "br" : "gzip";
}

/** One encoded JSON body with its compressed forms, made on first demand and then kept. */
export class EncodedBody {
  readonly raw: Uint8Array<ArrayBuffer>;
  #coded = new Map<Coding, Uint8Array<ArrayBuffer>>();

  constructor(json: string) {
    this.raw = new TextEncoder().encode(json);
  }

  /** The body in `coding` (and the coding actually used: identity for small bodies). */
  get(coding: Coding): { coding: Coding; bytes: Uint8Array<ArrayBuffer> } {
    if (coding === "identity" || this.raw.byteLength < MIN_COMPRESS_BYTES) {
      return { coding: "identity", bytes: this.raw };
    }
    let bytes = this.#coded.get(coding);
    if (!bytes) {
      // Synchronous on purpose: concurrent requests for the same new body find it compressed
      // instead of each starting its own stream.
      const packed = coding === "br"
        ? brotliCompressSync(this.raw, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
            [constants.BROTLI_PARAM_SIZE_HINT]: this.raw.byteLength,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          },
        })
        : gzipSync(this.raw, { level: GZIP_LEVEL });
      // Buffer → a plain view of its own bytes (Response takes ArrayBuffer-backed views).
      bytes = new Uint8Array(packed.buffer as ArrayBuffer, packed.byteOffset, packed.byteLength);
      this.#coded.set(coding, bytes);
    }
    return { coding, bytes };
  }
}
