/**
 * A minimal HTTP/1.1 client over a raw TCP connection, for requests `fetch` will not send:
 * an arbitrary `Host` header (DNS rebinding), or no `Origin` where a browser always sends one.
 *
 * @module
 */

/** A parsed response. */
export interface RawResponse {
  status: number;
  headers: Headers;
  body: string;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function dechunk(body: Uint8Array): Uint8Array {
  const dec = new TextDecoder();
  const parts: Uint8Array[] = [];
  let i = 0;
  for (;;) {
    const nl = body.indexOf(10, i);
    if (nl < 0) break;
    const size = parseInt(dec.decode(body.subarray(i, nl)).trim(), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(nl + 1, nl + 1 + size));
    i = nl + 1 + size + 2;
  }
  return concat(parts);
}

/**
 * Sends `method path` to 127.0.0.1:`port` with exactly `headers` (plus `Connection: close` and
 * `Content-Length` when there is a body) and reads the whole response.
 */
export async function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawResponse> {
  const enc = new TextEncoder();
  const bytes = body === undefined ? null : enc.encode(body);
  const lines = [`${method} ${path} HTTP/1.1`];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  lines.push("Connection: close");
  if (bytes) lines.push(`Content-Length: ${bytes.length}`);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const req = concat([enc.encode(lines.join("\r\n") + "\r\n\r\n"), bytes ?? new Uint8Array()]);
    for (let off = 0; off < req.length;) off += await conn.write(req.subarray(off));
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(16 * 1024);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
    const all = concat(chunks);
    const end = all.findIndex((_, i) =>
      all[i] === 13 && all[i + 1] === 10 && all[i + 2] === 13 && all[i + 3] === 10
    );
    if (end < 0) throw new Error("no complete response head");
    const head = new TextDecoder().decode(all.subarray(0, end)).split("\r\n");
    const status = Number(head[0].split(" ")[1]);
    const h = new Headers();
    for (const l of head.slice(1)) {
      const c = l.indexOf(":");
      if (c > 0) h.append(l.slice(0, c).trim(), l.slice(c + 1).trim());
    }
    let rest = all.subarray(end + 4);
    if ((h.get("transfer-encoding") ?? "").includes("chunked")) rest = dechunk(rest);
    return { status, headers: h, body: new TextDecoder().decode(rest) };
  } finally {
    conn.close();
  }
}
