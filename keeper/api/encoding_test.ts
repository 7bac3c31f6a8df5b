import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { EncodedBody, MIN_COMPRESS_BYTES, negotiateCoding } from "./encoding.ts";

Deno.test("negotiateCoding: highest q of br and gzip, br on a tie, * and q=0", () => {
  const cases: [string | null, string][] = [
    [null, "identity"],
    ["", "identity"],
    ["identity", "identity"],
    ["deflate", "identity"],
    ["gzip", "gzip"],
    ["GZIP", "gzip"],
    ["br", "br"],
    ["gzip, deflate, br, zstd", "br"],
    ["gzip, br", "br"],
    ["br;q=0.5, gzip", "gzip"],
    ["br;q=0.8, gzip;q=0.9", "gzip"],
    ["gzip;q=0, br", "br"],
    ["br;q=0, gzip;q=0", "identity"],
    ["br;q=0, *", "gzip"],
    ["*", "br"],
    ["*;q=0", "identity"],
    ["gzip ; q=1.0 , br ; q=0.001", "gzip"],
  ];
  for (const [header, want] of cases) assert.equal(negotiateCoding(header), want, String(header));
});

Deno.test("EncodedBody: compresses once per coding, round-trips, leaves small bodies alone", () => {
  const json = JSON.stringify(
    Array.from({ length: 300 }, (_, i) => ({ id: i, text: "x".repeat(20) })),
  );
  const body = new EncodedBody(json);
  const br = body.get("br");
  assert.equal(br.coding, "br");
  assert.equal(body.get("br").bytes, br.bytes, "the same bytes: compressed once");
  assert.equal(new TextDecoder().decode(brotliDecompressSync(br.bytes)), json);
  const gz = body.get("gzip");
  assert.equal(gz.coding, "gzip");
  assert.equal(body.get("gzip").bytes, gz.bytes);
  assert.equal(new TextDecoder().decode(gunzipSync(gz.bytes)), json);
  assert.ok(br.bytes.byteLength < body.raw.byteLength / 5);
  assert.equal(body.get("identity").bytes, body.raw);
  const small = new EncodedBody("x".repeat(MIN_COMPRESS_BYTES - 1));
  assert.deepEqual(small.get("br"), { coding: "identity", bytes: small.raw });
});
