/**
 * The real Blend v2 market (opt-in, `localnet/protocols/blend/deploy.ts`): Blend's Rust-built
 * Wasm from the `blend-contract-sdk` crate, deployed with Blend's flow on a fresh node, read back
 * over JSON-RPC — the code's `contractmetav0`, the Blend SDK's view of the pool, its reserves and
 * the borrowers — and a liquidation auction after an oracle price drop.
 */
import assert from "node:assert/strict";
import { Asset, type Keypair, rpc, TransactionBuilder, xdr } from "@stellar/stellar-sdk";
import { PoolContractV2, PoolV2, PositionsEstimate, RequestType } from "@blend-capital/blend-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { sendOk } from "@vigil/testing/submit";
import { seedTrustline, setupDevChain } from "../../dev_setup.ts";
import { BLEND_RESERVES, blendDebtFor, type BlendMarket, deployBlendMarket } from "./deploy.ts";
import { BLEND_MANIFEST, loadBlendWasm } from "./wasm.ts";
import { wasmCustomSections } from "../../spec/contract_spec.ts";
import { stellarAsset } from "../oracle/contract/spec.ts";

const E7 = 10_000_000n;

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
    await assert.rejects(
      loadBlendWasm(`${dir}/Cargo.toml`),
      /cargo metadata failed \(.+\); run `npm ci`/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  assert.ok(BLEND_MANIFEST.endsWith("localnet/protocols/blend/crate/Cargo.toml"));
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
      assert.match(meta.get("source_repo") ?? "", /blend-capital\/blend-contracts-v2/);
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
      source: m.accounts.market_admin.public,
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

/** Simulates, signs (real auth), sends and confirms `op`; returns the simulated instructions. */
async function send(node: TestNode, kp: Keypair, opXdr: string): Promise<number> {
  const account = await node.server.getAccount(kp.publicKey());
  const tx = new TransactionBuilder(account, {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  }).addOperation(xdr.Operation.fromXDR(opXdr, "base64")).setTimeout(60).build();
  const sim = await node.server.simulateTransaction(tx);
  if (!rpc.Api.isSimulationSuccess(sim)) {
    throw new Error(`simulation failed: ${(sim as { error?: string }).error}`);
  }
  const insns = Number(sim.transactionData.build().resources.instructions);
  const prepared = rpc.assembleTransaction(tx, sim).build();
  prepared.sign(kp);
  // Throws with the operation's result code and the diagnostic events when it FAILED.
  await sendOk(node.server, prepared);
  return insns;
}

Deno.test("real Blend v2 over JSON-RPC with signed auth: borrow, liquidation auction, fill", async () => {
  await withBlend(async (node, m) => {
    const c = m.contracts;
    const pool = new PoolContractV2(c.lending_pool);
    const figures: string[] = [];
    // A new borrower: XLM collateral, USDC debt at HF ≈ 1.03, signed by its own key.
    const borrower = await node.newAccount(200_000n);
    seedTrustline(node, borrower.publicKey(), new Asset("USDC", m.usdcIssuer), 0n);
    const collateral = 100_000n * E7;
    const debt = blendDebtFor({ xlm: collateral }, "usdc", 1_0300000n);
    figures.push(`submit(supply collateral + borrow) ${await send(
      node,
      borrower,
      pool.submit({
        from: borrower.publicKey(),
        spender: borrower.publicKey(),
        to: borrower.publicKey(),
        requests: [
          { request_type: RequestType.SupplyCollateral, address: c.xlm, amount: collateral },
          { request_type: RequestType.Borrow, address: c.usdc, amount: debt },
        ],
      }),
    )} instructions`);
    const pos = await node.view<{ liabilities: [number, bigint][] }>(
      c.lending_pool,
      "get_positions",
      [
        borrower.publicKey(),
      ],
    );
    assert.equal(pos.liabilities.length, 1, "borrowed");

    // Someone else's borrow on the borrower's behalf needs the borrower's signature.
    const thief = await node.newAccount();
    seedTrustline(node, thief.publicKey(), new Asset("USDC", m.usdcIssuer), 0n);
    await assert.rejects(
      send(
        node,
        thief,
        pool.submit({
          from: borrower.publicKey(),
          spender: borrower.publicKey(),
          to: thief.publicKey(),
          requests: [{ request_type: RequestType.Borrow, address: c.usdc, amount: 1n * E7 }],
        }),
      ),
      // Simulation records the borrower's auth; nobody signed it: its signature stays Void, which
      // the host cannot read as a Vec of signatures (Error(Value, UnexpectedType), as the real
      // host's check_account_authentication), and the call traps.
      /transaction FAILED: .*trapped.*unexpected_type/,
    );
    assert.equal(BigInt(await node.view<bigint>(c.usdc, "balance", [thief.publicKey()])), 0n);

    // XLM −10 %: anyone creates the auction; a filler with USDC collateral fills it once the lot
    // has grown (Dutch auction: lot rises over the first 200 blocks).
    await node.invoke(c.oracle, "set_price", { asset: stellarAsset(c.xlm), price: 900_000n }, {
      source: m.accounts.market_admin.public,
    });
    const filler = await node.newAccount();
    seedTrustline(node, filler.publicKey(), new Asset("USDC", m.usdcIssuer), 200_000n * E7);
    figures.push(`new_auction ${await send(
      node,
      filler,
      pool.newAuction({
        auction_type: 0,
        user: borrower.publicKey(),
        bid: [c.usdc],
        lot: [c.xlm],
        percent: 95,
      }),
    )} instructions`);
    await node.closeLedgers(200);
    const xlmBefore = BigInt(await node.view<bigint>(c.xlm, "balance", [filler.publicKey()]));
    figures.push(`submit(fill + repay) ${await send(
      node,
      filler,
      pool.submit({
        from: filler.publicKey(),
        spender: filler.publicKey(),
        to: filler.publicKey(),
        requests: [
          { request_type: RequestType.SupplyCollateral, address: c.usdc, amount: 50_000n * E7 },
          {
            request_type: RequestType.FillUserLiquidationAuction,
            address: borrower.publicKey(),
            amount: 100n,
          },
          { request_type: RequestType.Repay, address: c.usdc, amount: 100_000n * E7 },
          { request_type: RequestType.WithdrawCollateral, address: c.xlm, amount: 10n ** 15n },
        ],
      }),
    )} instructions`);
    const got = BigInt(await node.view<bigint>(c.xlm, "balance", [filler.publicKey()])) - xlmBefore;
    assert.ok(got > 0n, "the filler received the XLM lot");
    await assert.rejects(
      node.view(c.lending_pool, "get_auction", [0, borrower.publicKey()]),
      /#1200|Error/,
    );
    const fp = await node.view<{ liabilities: [number, bigint][] }>(
      c.lending_pool,
      "get_positions",
      [
        filler.publicKey(),
      ],
    );
    assert.equal(fp.liabilities.length, 0, "the filler repaid the debt it took on");
    console.log(`filled: the filler got ${got} XLM units; ${figures.join("; ")}`);
  });
});

Deno.test("real Blend v2 emissions: emitter → backstop → pool, backstop depositor claims LP tokens", async () => {
  await withBlend(async (node, m) => {
    const c = m.contracts;
    // The first distributions only record the emitter's time; the next ones pay out.
    await node.invoke(c.emitter, "distribute", []);
    await node.invoke(c.backstop, "distribute", []);
    await node.advanceTime(24 * 3600);
    const emitted = BigInt(await node.invoke<bigint>(c.emitter, "distribute", []));
    assert.ok(emitted >= 86_400n * E7, `1 BLND per second: ${emitted}`);
    assert.ok(BigInt(await node.invoke<bigint>(c.backstop, "distribute", [])) > 0n);
    assert.ok(BigInt(await node.invoke<bigint>(c.lending_pool, "gulp_emissions", [])) > 0n);
    await node.advanceTime(3600);
    const whale = m.accounts.backstop_depositor.public;
    const lp = BigInt(
      await node.invoke<bigint>(c.backstop, "claim", [whale, [c.lending_pool], 0n], {
        source: whale,
      }),
    );
    assert.ok(lp > 0n, "claimed BLND re-deposited as Comet LP tokens");
  });
});
