/**
 * `--protocol-wasm DIR` (`main.ts localnet --scenario market`, `main.ts demo`): the three Soroswap
 * Wasm files are checked before anything starts, and a missing file, a file that is not Wasm or a
 * module without the exports the market uses fails with an error naming the file.
 */
import assert from "node:assert/strict";
import { DENO_CONFIG, NO_FETCH_FLAGS } from "@vigil/util/deno_child";
import { DEX_WASM_FILES, loadDexWasm } from "@vigil/localnet/protocols/dex/deploy";
import { parseDemoArgs } from "@vigil/demo/demo";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const WASM = new URL("../../contracts/wasm/", import.meta.url).pathname;

/** A folder with our three Wasm files, then `mutate` applied. */
async function folder(mutate: (dir: string) => Promise<void> = async () => {}): Promise<string> {
  const dir = await Deno.makeTempDir();
  for (const { file } of Object.values(DEX_WASM_FILES)) {
    await Deno.copyFile(`${WASM}${file}`, `${dir}/${file}`);
  }
  await mutate(dir);
  return dir;
}

async function run(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...NO_FETCH_FLAGS, "--config", DENO_CONFIG, MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stderr: dec.decode(out.stderr), stdout: dec.decode(out.stdout) };
}

Deno.test("loadDexWasm: ours by default; a good folder loads; errors name the file", async () => {
  const ours = await loadDexWasm();
  assert.equal(ours.source, "contracts/wasm");
  assert.ok(ours.router.length > 1000 && ours.pair.length > 1000 && ours.factory.length > 1000);
  const good = await folder();
  const missing = await folder((d) => Deno.remove(`${d}/soroswap_pair.wasm`));
  const notWasm = await folder((d) => Deno.writeTextFile(`${d}/soroswap_factory.wasm`, "hello"));
  // The oracle's Wasm as a router: valid Wasm, but no swap_exact_tokens_for_tokens.
  const wrong = await folder((d) =>
    Deno.copyFile(`${WASM}oracle.wasm`, `${d}/soroswap_router.wasm`)
  );
  try {
    assert.equal((await loadDexWasm(good)).source, good);
    await assert.rejects(
      () => loadDexWasm(missing),
      new RegExp(`Soroswap pair Wasm ${missing}/soroswap_pair\\.wasm: cannot be read`),
    );
    await assert.rejects(
      () => loadDexWasm(notWasm),
      new RegExp(`Soroswap factory Wasm ${notWasm}/soroswap_factory\\.wasm: not a Wasm module`),
    );
    await assert.rejects(
      () => loadDexWasm(wrong),
      (e: Error) => {
        assert.match(e.message, new RegExp(`${wrong}/soroswap_router\\.wasm`));
        assert.match(e.message, /lacks the export\(s\) .*swap_exact_tokens_for_tokens/);
        return true;
      },
    );
    await assert.rejects(
      () => loadDexWasm(`${good}/nope`),
      new RegExp(`Soroswap Wasm folder ${good}/nope: cannot be read \\(NotFound\\)`),
    );
  } finally {
    for (const d of [good, missing, notWasm, wrong]) await Deno.remove(d, { recursive: true });
  }
});

Deno.test("main.ts localnet --protocol-wasm: a wrong folder fails before the node starts, naming the file", async () => {
  const bad = await folder((d) => Deno.writeTextFile(`${d}/soroswap_router.wasm`, "not wasm"));
  try {
    const r = await run([
      "localnet",
      "--scenario",
      "market",
      "--port",
      "0",
      "--protocol-wasm",
      bad,
    ]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(`Soroswap router Wasm ${bad}/soroswap_router\\.wasm: not a Wasm module`),
    );
    assert.doesNotMatch(r.stdout, /JSON-RPC/, "the node never started");
    const base = await run(["localnet", "--port", "0", "--protocol-wasm", bad]);
    assert.equal(base.code, 1);
    assert.match(base.stderr, /--protocol-wasm needs --scenario market/);
    const help = await run(["--help"]);
    assert.match(help.stdout, /--protocol-wasm <dir>/);
  } finally {
    await Deno.remove(bad, { recursive: true });
  }
});

Deno.test("main.ts demo --protocol-wasm: parsed, and a missing file fails before anything starts", async () => {
  const parsed = parseDemoArgs(["--protocol-wasm", "/some/dir"]);
  assert.ok(parsed !== "help");
  assert.equal(parsed.protocolWasm, "/some/dir");
  assert.equal((parseDemoArgs([]) as { protocolWasm?: string }).protocolWasm, undefined);
  const dir = await folder((d) => Deno.remove(`${d}/soroswap_factory.wasm`));
  try {
    const r = await run(["demo", "--rpc-port", "0", "--port", "0", "--protocol-wasm", dir]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      new RegExp(
        `demo: --protocol-wasm: Soroswap factory Wasm ${dir}/soroswap_factory\\.wasm: cannot be read`,
      ),
    );
    assert.doesNotMatch(r.stdout, /deploying the market/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
