/**
 * The real Blend v2 market (opt-in, `localnet/protocols/blend/deploy.ts`): Blend's Rust-built
 * Wasm from the `blend-contract-sdk` crate, deployed with Blend's flow on a fresh node, read back
 * over JSON-RPC — the code's `contractmetav0`, the Blend SDK's view of the pool, its reserves and
 * the borrowers — and a liquidation auction after an oracle price drop.
 */
import assert from "node:assert/strict";
import { PoolV2, PositionsEstimate } from "@blend-capital/blend-sdk";
import { startTestNode, type TestNode } from "../helpers/localnet.ts";
import { setupDevChain } from "../../localnet/dev_setup.ts";
import {
  BLEND_RESERVES,
  type BlendMarket,
  deployBlendMarket,
} from "../../localnet/protocols/blend/deploy.ts";
import { BLEND_MANIFEST, loadBlendWasm } from "../../localnet/protocols/blend/wasm.ts";
import { wasmCustomSections } from "../../localnet/host/wasm.ts";
import { stellarAsset } from "../../localnet/protocols/oracle/mod.ts";

/** `contractmetav0` entries (ScMetaEntry::ScMetaV0 {key, val}, XDR strings) as a map. */
function contractMeta(wasm: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  const dec = new TextDecoder();
  for (const sec of wasmCustomSections(wasm).get("contractmetav0") ?? []) {
    const view = new DataView(sec.buffer, sec.byteOffset, sec.byteLength);
    let o = 0;
    const str = () => {
      const n = view.getUint32(o);
      const s = dec.decode(sec.subarray(o + 4, o + 4 + n));
      o += 4 + Math.ceil(n / 4) * 4;
      return s;
    };
    while (o < sec.length) {
      assert.equal(view.getUint32(o), 0, "ScMetaEntry kind SC_META_V0");
      o += 4;
      const key = str();
      out.set(key, str());
    }
  }
  return out;
}

async function withBlend(fn: (node: TestNode, m: BlendMarket) => Promise<void>): Promise<void> {
  await using node = await startTestNode();
  const base = await setupDevChain(node);
  const t0 = performance.now();
  const m = await deployBlendMarket(node, base);
  console.log(`real Blend market deployed in ${Math.round(performance.now() - t0)} ms`);
  await fn(node, m);
}

Deno.test("loadBlendWasm: the crate's six Wasm files through cargo metadata --offline", async () => {
  const c = await loadBlendWasm();
  assert.equal(c.license, "MIT");
  assert.match(c.version, /^2\.\d+\.\d+$/);
  for (const w of Object.values(c.wasm)) {
    assert.deepEqual([...w.subarray(0, 4)], [0, 0x61, 0x73, 0x6d], "a Wasm module");
  }
  // A manifest cargo cannot resolve offline gets the fix in its message.
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/Cargo.toml`,
      '[package]\nname = "x"\nversion = "0.0.0"\n[lib]\npath = "l.rs"\n[dependencies]\n' +
        'blend-contract-sdk = "=0.0.1"\n[workspace]\n',
    );
    await assert.rejects(loadBlendWasm(`${dir}/Cargo.toml`), /run `npm ci`/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  assert.ok(BLEND_MANIFEST.endsWith("protocols/blend/Cargo.toml"));
});

Deno.test("real Blend v2: Rust Wasm, loaded by the Blend SDK over JSON-RPC, active, auction after a drop", async () => {
  await withBlend(async (node, m) => {
    const c = m.contracts;
    // The pool and backstop run the crate's Rust-built code, as served over JSON-RPC.
    for (const name of ["lending_pool", "backstop"]) {
      const wasm = await node.server.getContractWasmByContractId(c[name]);
      const meta = contractMeta(wasm);
      assert.match(meta.get("rssdkver") ?? "", /^\d+\.\d+\.\d+/, `${name}: ${[...meta]}`);
      assert.ok(meta.has("rsver"), `${name} names its rustc`);
    }
    const crate = await loadBlendWasm();
    const poolWasm = await node.server.getContractWasmByContractId(c.lending_pool);
    assert.deepEqual(
      new Uint8Array(poolWasm),
      crate.wasm.pool,
      "the factory deployed the crate's pool",
    );

    // The factory knows its pool; the pool's backstop is the real backstop.
    assert.equal(await node.view(c.pool_factory, "is_pool", [c.lending_pool]), true);
    const network = {
      rpc: node.rpcUrl,
      passphrase: node.networkPassphrase,
      opts: { allowHttp: true },
    };
    const pool = await PoolV2.load(network, c.lending_pool);
    assert.equal(pool.metadata.status, 0, "active (set by the admin above the threshold)");
    assert.equal(pool.metadata.backstop, c.backstop);
    assert.deepEqual(pool.metadata.reserveList, BLEND_RESERVES.map((t) => c[t]));
    for (const t of BLEND_RESERVES) {
      const r = pool.reserves.get(c[t]);
      assert.ok(r, `reserve ${t}`);
      assert.ok(r.totalSupplyFloat() > 0, `${t} supplied`);
    }
    const bs = await node.view<{ shares: bigint; tokens: bigint }>(c.backstop, "pool_data", [
      c.lending_pool,
    ]);
    assert.ok(BigInt(bs.tokens) >= 50_000n * 10_000_000n, "backstop deposit");

    // Each borrower sits at its target health factor, per the SDK's own maths.
    const oracle = await pool.loadOracle();
    const hfOf = async (user: string) => {
      const est = PositionsEstimate.build(pool, oracle, (await pool.loadUser(user)).positions);
      return est.totalEffectiveCollateral / est.totalEffectiveLiabilities;
    };
    for (const b of m.borrowers) {
      const hf = await hfOf(b.public);
      assert.ok(Math.abs(hf - Number(b.hf) / 1e7) < 1e-3, `${b.name}: ${hf}`);
    }

    // An XLM drop of 10 % sinks the XLM borrower; the real pool opens its liquidation auction.
    const b = m.borrowers.find((x) => x.name === "borrower_xlm_1")!;
    await assert.rejects(
      node.invoke(c.lending_pool, "new_auction", {
        auction_type: 0,
        user: b.public,
        bid: [c.usdc],
        lot: [c.xlm],
        percent: 50,
      }),
      /Error\(Contract, #/,
      "healthy: no auction",
    );
    await node.invoke(c.oracle, "set_price", { asset: stellarAsset(c.xlm), price: 900_000n }, {
      source: m.accounts.blend_admin.public,
    });
    await node.closeLedgers(1);
    const after = await PoolV2.load(network, c.lending_pool);
    const est = PositionsEstimate.build(
      after,
      await after.loadOracle(),
      (await after.loadUser(b.public)).positions,
    );
    assert.ok(est.totalEffectiveCollateral < est.totalEffectiveLiabilities, "underwater");
    // The real pool only takes a percent that leaves the user in its post-liquidation health
    // band (1.03–1.15): too small is #1214, too large #1213. Take the first that fits.
    let percent = 0;
    const refused: string[] = [];
    for (let p = 10; p <= 100 && percent === 0; p += 5) {
      try {
        await node.invoke(c.lending_pool, "new_auction", {
          auction_type: 0,
          user: b.public,
          bid: [c.usdc],
          lot: [c.xlm],
          percent: p,
        });
        percent = p;
      } catch (e) {
        refused.push(`${p}%: ${String(e).match(/Error\(Contract, #\d+\)/)?.[0]}`);
      }
    }
    assert.ok(percent > 0, `no percent accepted: ${refused.join(", ")}`);
    assert.ok(
      refused.some((r) => r.includes("#1214")),
      "smaller percents are refused as too small",
    );
    // AuctionData {bid, block, lot}: maps decode as [key, value] pairs.
    const auction = await node.view<{ bid: [string, bigint][]; lot: [string, bigint][] }>(
      c.lending_pool,
      "get_auction",
      [0, b.public],
    );
    const bid = new Map(auction.bid).get(c.usdc);
    const lot = new Map(auction.lot).get(c.xlm);
    assert.ok(bid && BigInt(bid) > 0n, "bid: USDC debt");
    assert.ok(lot && BigInt(lot) > 0n, "lot: XLM collateral");
    console.log(`auction on ${b.name} at ${percent}%: bid ${bid} USDC units, lot ${lot} XLM units`);
  });
});
