/**
 * The body limit also holds over HTTP/2: `Deno.serve` accepts cleartext HTTP/2 with prior
 * knowledge (h2c), where a body is a series of DATA frames with neither Content-Length nor
 * `Transfer-Encoding: chunked`. Spoken over raw TCP with hand-made frames, since `fetch` has no
 * h2c.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { bodyLimitGuard } from "@vigil/util/http_guard";

const enc = new TextEncoder();

/** One HTTP/2 frame: 24-bit length, type, flags, stream id. */
function frame(type: number, flags: number, stream: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(9 + payload.length);
  const n = payload.length;
  out.set([(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff, type, flags], 0);
  new DataView(out.buffer).setUint32(5, stream & 0x7fffffff);
  out.set(payload, 9);
  return out;
}

/** HPACK string literal (no Huffman), length < 127. */
function str(s: string): number[] {
  const b = enc.encode(s);
  return [b.length, ...b];
}

/**
 * POSTs `size` bytes to `path` over h2c (no Content-Length) and returns the text of the answer's
 * DATA frames.
 */
async function h2Post(port: number, path: string, size: number): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const headers = new Uint8Array([
      0x83, // :method POST (static 3)
      0x86, // :scheme http (static 6)
      0x04, // :path, literal without indexing, name static 4
      ...str(path),
      0x01, // :authority, name static 1
      ...str(`127.0.0.1:${port}`),
      0x0f, // content-type, name static 31 (4-bit prefix: 15 + 16)
      0x10,
      ...str("application/json"),
    ]);
    const parts = [
      enc.encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
      frame(4, 0, 0, new Uint8Array()), // SETTINGS
      frame(1, 0x4, 1, headers), // HEADERS, END_HEADERS
    ];
    // Within the default 64 KiB flow-control window and 16 KiB frame size.
    for (let sent = 0; sent < size;) {
      const n = Math.min(8192, size - sent);
      sent += n;
      parts.push(frame(0, sent === size ? 0x1 : 0, 1, new Uint8Array(n).fill(0x20)));
    }
    for (const p of parts) await conn.write(p);
    // Read frames until stream 1 ends (END_STREAM) or the connection does.
    let buf = new Uint8Array();
    let body = "";
    const chunk = new Uint8Array(16384);
    for (;;) {
      while (buf.length >= 9) {
        const len = (buf[0] << 16) | (buf[1] << 8) | buf[2];
        if (buf.length < 9 + len) break;
        const [type, flags] = [buf[3], buf[4]];
        const stream = new DataView(buf.buffer, buf.byteOffset).getUint32(5) & 0x7fffffff;
        const payload = buf.subarray(9, 9 + len);
        buf = buf.slice(9 + len);
        if (type === 4 && !(flags & 0x1)) await conn.write(frame(4, 0x1, 0, new Uint8Array()));
        if (stream === 1 && type === 0) body += new TextDecoder().decode(payload);
        if (stream === 1 && (type === 0 || type === 1) && flags & 0x1) return body;
        if (type === 3 && stream === 1) return body; // RST_STREAM
        if (type === 7) return body; // GOAWAY
      }
      const n = await conn.read(chunk);
      if (n === null) return body;
      buf = new Uint8Array([...buf, ...chunk.subarray(0, n)]);
    }
  } finally {
    conn.close();
  }
}

Deno.test("body limit over h2c: a body without Content-Length or chunking still gets 413", async () => {
  const app = new Hono();
  app.use("*", bodyLimitGuard(1000));
  app.post("/x", async (c) => c.json({ len: (await c.req.text()).length }));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  try {
    const port = (server.addr as Deno.NetAddr).port;
    // Under the limit: the handler reads it (so the h2 request really works).
    assert.equal(await h2Post(port, "/x", 900), '{"len":900}');
    // Over it: refused, not read into the handler.
    const big = await h2Post(port, "/x", 40_000);
    assert.equal(big, '{"error":"payload_too_large","limit_bytes":1000}');
  } finally {
    await server.shutdown();
  }
});
