/**
 * The bundler's inputs and its in-memory output, without running `deno bundle`: island lists
 * are checked before anything runs, prebuilt directories are read and checked, and the per-page
 * JavaScript closure follows static imports only.
 */
import assert from "node:assert/strict";
import {
  bundleIslands,
  checkIslands,
  type IslandBundle,
  jsClosure,
  loadPrebuiltIslands,
} from "./bundle.ts";

const src = (name: string) => ({ name, url: new URL(`file:///app/islands/${name}.tsx`) });

Deno.test("bundle: island lists are checked — names, duplicates, file: sources, not empty", () => {
  checkIslands([src("LiveLog"), src("Wallet_Button2")]);
  assert.throws(() => checkIslands([]), /no islands/);
  for (const name of ["", "a-b", "../x", "a.js", "1abc", "chunk-X", 'x"]']) {
    assert.throws(() => checkIslands([src("Ok"), { ...src("Ok2"), name }]), /letters/, name);
  }
  assert.throws(() => checkIslands([src("A"), src("A")]), /listed twice/);
  assert.throws(
    () => checkIslands([{ name: "A", url: new URL("https://example.com/a.tsx") }]),
    /file: URL/,
  );
});

Deno.test("bundle: bundleIslands refuses a bad island list before starting the bundler", async () => {
  await assert.rejects(() => bundleIslands({ islands: [src("A"), src("A")] }), /listed twice/);
});

Deno.test("bundle: prebuilt islands are read with content hashes; a missing entry is an error", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ssr-prebuilt-test-" });
  try {
    await Deno.writeTextFile(`${dir}/A.js`, 'import"./chunk-1.js";');
    await Deno.writeTextFile(`${dir}/chunk-1.js`, "export{};");
    await Deno.writeTextFile(`${dir}/notes.txt`, "not served");
    const b = await loadPrebuiltIslands(dir, [src("A")]);
    assert.equal(b.source, "prebuilt");
    assert.deepEqual([...b.files.keys()].sort(), ["A.js", "chunk-1.js"]);
    assert.match(b.files.get("A.js")!.etag, /^[0-9a-f]{16}$/);
    assert.notEqual(b.files.get("A.js")!.etag, b.files.get("chunk-1.js")!.etag);
    await assert.rejects(() => loadPrebuiltIslands(dir, [src("A"), src("B")]), /B\.js missing/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bundle: a page's up-front JavaScript follows static imports, not dynamic ones", () => {
  const file = (text: string) => ({ body: new TextEncoder().encode(text), etag: "0" });
  const b: IslandBundle = {
    source: "prebuilt",
    ms: 0,
    files: new Map([
      ["A.js", file('import{x}from"./chunk-1.js";import("./chunk-lazy.js")')],
      ["B.js", file('import "./chunk-1.js";import "./chunk-2.js";')],
      ["chunk-1.js", file("export const x=1;")],
      ["chunk-2.js", file('import"./chunk-1.js";')],
      ["chunk-lazy.js", file("x".repeat(1000))],
    ]),
  };
  const a = jsClosure(b, ["A"]);
  assert.deepEqual(a.files, ["A.js", "chunk-1.js"]);
  assert.equal(a.bytes, b.files.get("A.js")!.body.length + b.files.get("chunk-1.js")!.body.length);
  assert.deepEqual(jsClosure(b, ["A", "B"]).files, ["A.js", "B.js", "chunk-1.js", "chunk-2.js"]);
  assert.deepEqual(jsClosure(b, ["Missing"]).files, []);
});
