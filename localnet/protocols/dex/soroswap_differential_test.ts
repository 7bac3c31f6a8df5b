/**
 * Differential test of Vigil's Soroswap-ABI contracts (`localnet/protocols/dex/contracts/soroswap_*`) against the
 * official Soroswap Wasm from the folder in VIGIL_PROTOCOL_WASM (soroswap_factory.wasm,
 * soroswap_pair.wasm, soroswap_router.wasm; see localnet/protocols/dex/README.md for where to get
 * them). Without the variable it passes and prints "skipped: VIGIL_PROTOCOL_WASM not set".
 *
 * Both venues are deployed on one node from their own Wasm (factory initialized with its pair
 * Wasm hash, router with its factory) and one script runs on each with its own actor (two
 * accounts holding the same balances): add liquidity (pair creation), swaps both directions,
 * multi-hop, exact-out, quotes over random reserves, remove liquidity, protocol fees, the LP
 * token, and the error paths. Every step's result (value, or contract error code, or "trap" for
 * a host error), the reserves, the actors' balances and every event of the routers, factories and
 * pairs are compared after replacing addresses by their role (router, factory, pair:<a>/<b>,
 * actor, …).
 */
import assert from "node:assert/strict";
import { Asset, Keypair, scValToNative, type xdr } from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { seedTrustline, setupDevChain } from "../../dev_setup.ts";
import { deployVenue, type DexWasm, loadDexWasm } from "./deploy.ts";

const E7 = 10_000_000n;
const DIR = Deno.env.get("VIGIL_PROTOCOL_WASM");

/** One venue under test and the addresses it names by role. */
interface Side {
  label: "ours" | "real";
  actor: string;
  router: string;
  factory: string;
  pairs: Record<string, string>;
  roles: Map<string, string>;
}

/** A step's outcome: the value, or the failure (contract code, or "trap"). */
type Outcome = { ok: unknown } | { err: number | "trap" };

async function outcome(p: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await p };
  } catch (e) {
    const m = /Error\(Contract, #(\d+)\)/.exec(String((e as Error).message ?? e));
    return { err: m ? Number(m[1]) : "trap" };
  }
}

/** Replaces every known address by its role, recursively. */
function norm(v: unknown, roles: Map<string, string>): unknown {
  if (typeof v === "string") return roles.get(v) ?? v;
  if (Array.isArray(v)) return v.map((x) => norm(x, roles));
  if (v instanceof Uint8Array) return `bytes:${v.length}`;
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x, roles)]));
  }
  return v;
}

const json = (v: unknown) => JSON.stringify(v, (_k, x) => typeof x === "bigint" ? `${x}n` : x);

Deno.test("soroswap differential: ours vs the official Wasm (VIGIL_PROTOCOL_WASM)", async () => {
  if (!DIR) {
    console.log("skipped: VIGIL_PROTOCOL_WASM not set");
    return;
  }
  const real = await loadDexWasm(DIR);
  const ours = await loadDexWasm();
  const node = await startTestNode();
  try {
    await run(node, ours, real);
  } finally {
    await node.close();
  }
});

async function run(node: TestNode, oursWasm: DexWasm, realWasm: DexWasm): Promise<void> {
  const base = await setupDevChain(node, { accounts: ["alice", "bob"] });
  const admin = await node.newAccount(50_000_000n);
  const feeTo = await node.newAccount();
  const { usdc, xlm } = base.contracts;
  const wethIssuer = await node.newAccount();
  const wethAsset = new Asset("WETH", wethIssuer.publicKey());
  const weth = await node.deployAsset(wethAsset);
  const actors = [base.accounts.alice.public, base.accounts.bob.public];
  for (const a of actors) {
    seedTrustline(node, a, wethAsset, 1_000n * E7);
    await node.fund(a, 1_000_000n);
  }
  // The same XLM on both actors (the dev chain funds them alike; make sure).
  const xlmOf = (a: string) => node.view<bigint>(xlm, "balance", [a]);
  const [x0, x1] = [await xlmOf(actors[0]), await xlmOf(actors[1])];
  if (x0 !== x1) {
    const [rich, poor] = x0 > x1 ? [actors[0], actors[1]] : [actors[1], actors[0]];
    await node.invoke(xlm, "transfer", [rich, poor, x0 > x1 ? x0 - x1 : x1 - x0], {
      source: rich,
    });
  }
  const common = new Map<string, string>([
    [usdc, "usdc"],
    [xlm, "xlm"],
    [weth, "weth"],
    [admin.publicKey(), "admin"],
    [feeTo.publicKey(), "fee_to"],
  ]);
  const sides: Side[] = [];
  for (
    const [label, wasm, actor] of [["ours", oursWasm, actors[0]], [
      "real",
      realWasm,
      actors[1],
    ]] as const
  ) {
    const v = await deployVenue(node, admin.publicKey(), wasm);
    const roles = new Map(common);
    roles.set(v.router, "router");
    roles.set(v.factory, "factory");
    roles.set(actor, "actor");
    sides.push({ label, actor, router: v.router, factory: v.factory, pairs: {}, roles });
  }
  const differences: string[] = [];
  const steps: string[] = [];
  const tally = { ok: 0, contractErr: 0, trap: 0, events: 0 };
  const deadline = () => node.latestLedger().closeTime + 600n;

  /** Runs `fn` on both sides and compares the normalized outcomes. */
  async function both(step: string, fn: (s: Side) => Promise<unknown>): Promise<Outcome[]> {
    const outs: Outcome[] = [];
    for (const s of sides) outs.push(await outcome(fn(s)));
    const o = outs[1];
    if ("ok" in o) tally.ok++;
    else if (o.err === "trap") tally.trap++;
    else tally.contractErr++;
    if (Deno.env.get("VIGIL_DIFF_VERBOSE")) console.log(step, json(norm(o, sides[1].roles)));
    const [a, b] = outs.map((o, i) => json(norm(o, sides[i].roles)));
    steps.push(step);
    if (a !== b) {
      differences.push(`${step}: ours ${a} ≠ real ${b}`);
      console.log(`  DIFF ${differences.at(-1)}`);
    }
    return outs;
  }
  const as = (s: Side) => ({ source: s.actor });
  const notePair = async (s: Side, key: string, a: string, b: string) => {
    const p = await node.view<string>(s.factory, "get_pair", [a, b]);
    s.pairs[key] = p;
    s.roles.set(p, `pair:${key}`);
  };
  const state = async (step: string) => {
    await both(`${step}: reserves, LP and balances`, async (s) => {
      const out: Record<string, unknown> = {};
      for (const [k, p] of Object.entries(s.pairs)) {
        out[k] = {
          reserves: await node.view(p, "get_reserves"),
          supply: await node.view(p, "total_supply"),
          k_last: await node.view(p, "k_last"),
          lp_actor: await node.view(p, "balance", [s.actor]),
          lp_fee_to: await node.view(p, "balance", [feeTo.publicKey()]),
        };
      }
      for (const [n, t] of [["usdc", usdc], ["xlm", xlm], ["weth", weth]]) {
        out[n] = await node.view(t, "balance", [s.actor]);
      }
      return out;
    });
  };

  // 1. Add liquidity: the first deposit creates the pair through the factory.
  const seeds: [string, string, string, bigint, bigint][] = [
    ["xlm/usdc", xlm, usdc, 100_000n * E7, 12_000n * E7],
    ["weth/xlm", weth, xlm, 40n * E7, 100_000n * E7],
  ];
  for (const [key, a, b, amtA, amtB] of seeds) {
    const [o] = await both(
      `add_liquidity ${key} (creates the pair)`,
      (s) =>
        node.invoke(
          s.router,
          "add_liquidity",
          [a, b, amtA, amtB, 0n, 0n, s.actor, deadline()],
          as(s),
        ),
    );
    if ("err" in o) throw new Error(`add_liquidity ${key} failed: ${json(o)}`);
    for (const s of sides) await notePair(s, key, a, b);
  }
  await both("pair metadata", async (s) => {
    const p = s.pairs["xlm/usdc"];
    return [
      await node.view(p, "name"),
      await node.view(p, "symbol"),
      await node.view(p, "decimals"),
      await node.view(p, "token_0"),
      await node.view(p, "token_1"),
      await node.view(p, "factory"),
    ];
  });
  await both(
    "router_pair_for = factory.get_pair",
    async (s) =>
      (await node.view(s.router, "router_pair_for", [xlm, usdc])) === s.pairs["xlm/usdc"],
  );
  await both(
    "add_liquidity again (optimal amounts)",
    (s) =>
      node.invoke(s.router, "add_liquidity", [
        xlm,
        usdc,
        5_000n * E7,
        9_999n * E7,
        0n,
        0n,
        s.actor,
        deadline(),
      ], as(s)),
  );
  await both(
    "add_liquidity 506",
    (s) =>
      node.invoke(s.router, "add_liquidity", [
        xlm,
        usdc,
        5_000n * E7,
        9_999n * E7,
        0n,
        9_999n * E7,
        s.actor,
        deadline(),
      ], as(s)),
  );
  await both(
    "add_liquidity 505",
    (s) =>
      node.invoke(s.router, "add_liquidity", [
        xlm,
        usdc,
        5_000n * E7,
        100n * E7,
        5_000n * E7,
        0n,
        s.actor,
        deadline(),
      ], as(s)),
  );
  await state("after adds");

  // 2. Swaps: exact in both directions, multi-hop, exact out.
  const swaps: [string, string, bigint, string[]][] = [
    ["exact_in", "xlm->usdc", 1_234n * E7 + 7n, [xlm, usdc]],
    ["exact_in", "usdc->xlm", 99n * E7 + 1n, [usdc, xlm]],
    ["exact_in", "weth->xlm->usdc", 1n * E7 + 3n, [weth, xlm, usdc]],
    ["exact_out", "usdc->xlm", 500n * E7, [usdc, xlm]],
    ["exact_out", "usdc->xlm->weth", 1n * E7, [usdc, xlm, weth]],
  ];
  for (const [kind, name, amount, path] of swaps) {
    const fn = kind === "exact_in" ? "router_get_amounts_out" : "router_get_amounts_in";
    await both(`quote ${kind} ${name}`, (s) => node.view(s.router, fn, [amount, path]));
    await both(
      `swap ${kind} ${name}`,
      (s) =>
        kind === "exact_in"
          ? node.invoke(s.router, "swap_exact_tokens_for_tokens", [
            amount,
            0n,
            path,
            s.actor,
            deadline(),
          ], as(s))
          : node.invoke(s.router, "swap_tokens_for_exact_tokens", [
            amount,
            10n ** 20n,
            path,
            s.actor,
            deadline(),
          ], as(s)),
    );
    await state(`after ${kind} ${name}`);
  }

  // 3. Library quotes over random reserves and amounts (pure functions).
  let seed = 12345;
  const rnd = (max: bigint) => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const hi = BigInt(seed);
    seed = (seed * 1103515245 + 12345) >>> 0;
    return ((hi << 32n) | BigInt(seed)) % max;
  };
  for (let i = 0; i < 25; i++) {
    const mag = 10n ** rnd(15n);
    const rIn = rnd(mag * 1000n) + 1n;
    const rOut = rnd(mag * 1000n) + 2n;
    const amt = rnd(mag * 10n) + 1n;
    const out = amt % rOut;
    await both(`library #${i}`, async (s) => [
      await outcome(node.view(s.router, "router_get_amount_out", [amt, rIn, rOut])),
      await outcome(node.view(s.router, "router_get_amount_in", [out, rIn, rOut])),
      await outcome(node.view(s.router, "router_quote", [amt, rIn, rOut])),
    ]);
  }

  // 4. Errors.
  const now = () => node.latestLedger().closeTime;
  const errorSteps: [string, (s: Side) => Promise<unknown>][] = [
    [
      "503 deadline",
      (s) =>
        node.invoke(s.router, "swap_exact_tokens_for_tokens", [
          1n * E7,
          0n,
          [xlm, usdc],
          s.actor,
          now(),
        ], as(s)),
    ],
    [
      "507 min out",
      (s) =>
        node.invoke(s.router, "swap_exact_tokens_for_tokens", [
          1n * E7,
          10n ** 15n,
          [xlm, usdc],
          s.actor,
          deadline(),
        ], as(s)),
    ],
    [
      "508 max in",
      (s) =>
        node.invoke(s.router, "swap_tokens_for_exact_tokens", [
          1n * E7,
          1n,
          [xlm, usdc],
          s.actor,
          deadline(),
        ], as(s)),
    ],
    [
      "502 negative",
      (s) =>
        node.invoke(s.router, "swap_exact_tokens_for_tokens", [
          -1n,
          0n,
          [xlm, usdc],
          s.actor,
          deadline(),
        ], as(s)),
    ],
    ["514 path", (s) => node.view(s.router, "router_get_amounts_out", [1n, [xlm]])],
    ["515 identical", (s) => node.view(s.router, "router_get_amounts_out", [1n, [xlm, xlm]])],
    ["512 zero in", (s) => node.view(s.router, "router_get_amounts_out", [0n, [xlm, usdc]])],
    ["513 zero out", (s) => node.view(s.router, "router_get_amounts_in", [0n, [xlm, usdc]])],
    [
      "missing pair quote",
      (s) => node.view(s.router, "router_get_amounts_out", [1n * E7, [weth, usdc]]),
    ],
    [
      "missing pair swap",
      (s) =>
        node.invoke(s.router, "swap_exact_tokens_for_tokens", [
          1n * E7,
          0n,
          [weth, usdc],
          s.actor,
          deadline(),
        ], as(s)),
    ],
    [
      "509 remove missing pair",
      (s) =>
        node.invoke(
          s.router,
          "remove_liquidity",
          [weth, usdc, 1n, 0n, 0n, s.actor, deadline()],
          as(s),
        ),
    ],
    ["504 router initialize", (s) => node.invoke(s.router, "initialize", [s.factory])],
    [
      "204 factory initialize",
      (s) => node.invoke(s.factory, "initialize", [admin.publicKey(), new Uint8Array(32)]),
    ],
    ["203 duplicate pair", (s) => node.invoke(s.factory, "create_pair", [usdc, xlm], as(s))],
    ["202 identical pair", (s) => node.invoke(s.factory, "create_pair", [usdc, usdc], as(s))],
    ["205 get_pair", (s) => node.view(s.factory, "get_pair", [weth, usdc])],
    ["206 all_pairs", (s) => node.view(s.factory, "all_pairs", [7])],
    ["pair_exists", (s) => node.view(s.factory, "pair_exists", [weth, usdc])],
    [
      "101 pair initialize",
      (s) => node.invoke(s.pairs["xlm/usdc"], "initialize", [s.factory, usdc, xlm]),
    ],
    ["108 pair swap zero", (s) => node.invoke(s.pairs["xlm/usdc"], "swap", [0n, 0n, s.actor])],
    ["109 pair swap negative", (s) => node.invoke(s.pairs["xlm/usdc"], "swap", [-1n, 1n, s.actor])],
    [
      "110 pair swap too much",
      (s) => node.invoke(s.pairs["xlm/usdc"], "swap", [10n ** 18n, 0n, s.actor]),
    ],
    ["111 pair swap to token", (s) => node.invoke(s.pairs["xlm/usdc"], "swap", [1n, 0n, usdc])],
    [
      "112 pair swap no input",
      (s) => node.invoke(s.pairs["xlm/usdc"], "swap", [1n * E7, 0n, s.actor]),
    ],
    [
      "115/116 withdraw nothing sent",
      (s) => node.invoke(s.pairs["xlm/usdc"], "withdraw", [s.actor]),
    ],
    ["104 deposit nothing sent", (s) => node.invoke(s.pairs["xlm/usdc"], "deposit", [s.actor])],
  ];
  for (const [name, fn] of errorSteps) await both(name, fn);
  // 114: some input, but asking more than the K check allows.
  await both("114 K constant", async (s) => {
    const p = s.pairs["xlm/usdc"];
    await node.invoke(xlm, "transfer", [s.actor, p, 1n * E7], as(s));
    const [t0] = [await node.view<string>(p, "token_0")];
    const [r0, r1] = await node.view<[bigint, bigint]>(p, "get_reserves");
    const [rx, ru] = t0 === xlm ? [r0, r1] : [r1, r0];
    const fair = ((1n * E7 - 30000n) * ru) / (rx + 1n * E7 - 30000n);
    const outs = (o: bigint) => t0 === xlm ? [0n, o] : [o, 0n];
    const tooMuch = await outcome(node.invoke(p, "swap", [...outs(fair + 1n), s.actor]));
    const fine = await outcome(node.invoke(p, "swap", [...outs(fair), s.actor]));
    return [tooMuch, fine];
  });
  await state("after errors");

  // 5. Protocol fees on: fee_to gets LP shares on the next liquidity event.
  await both(
    "set_fee_to",
    (s) => node.invoke(s.factory, "set_fee_to", [feeTo.publicKey()], { source: admin.publicKey() }),
  );
  await both(
    "set_fees_enabled",
    (s) => node.invoke(s.factory, "set_fees_enabled", [true], { source: admin.publicKey() }),
  );
  await both("fee getters", async (s) => [
    await node.view(s.factory, "fee_to"),
    await node.view(s.factory, "fee_to_setter"),
    await node.view(s.factory, "fees_enabled"),
    await node.view(s.factory, "all_pairs_length"),
  ]);
  await both(
    "add with fees on (k_last set)",
    (s) =>
      node.invoke(s.router, "add_liquidity", [
        xlm,
        usdc,
        1_000n * E7,
        1_000n * E7,
        0n,
        0n,
        s.actor,
        deadline(),
      ], as(s)),
  );
  for (let i = 0; i < 3; i++) {
    await both(
      `swap with fees on #${i}`,
      (s) =>
        node.invoke(s.router, "swap_exact_tokens_for_tokens", [
          2_000n * E7,
          0n,
          [xlm, usdc],
          s.actor,
          deadline(),
        ], as(s)),
    );
  }
  await both(
    "add with fees on (fee shares minted)",
    (s) =>
      node.invoke(s.router, "add_liquidity", [
        xlm,
        usdc,
        1_000n * E7,
        1_000n * E7,
        0n,
        0n,
        s.actor,
        deadline(),
      ], as(s)),
  );
  await state("after fees");

  // 6. Remove liquidity, LP token transfers and allowances.
  await both("remove_liquidity 505", async (s) => {
    const lp = await node.view<bigint>(s.pairs["xlm/usdc"], "balance", [s.actor]);
    return await node.invoke(s.router, "remove_liquidity", [
      xlm,
      usdc,
      lp / 3n,
      10n ** 17n,
      0n,
      s.actor,
      deadline(),
    ], as(s));
  });
  await both("remove_liquidity a third", async (s) => {
    const lp = await node.view<bigint>(s.pairs["xlm/usdc"], "balance", [s.actor]);
    return await node.invoke(s.router, "remove_liquidity", [
      xlm,
      usdc,
      lp / 3n,
      0n,
      0n,
      s.actor,
      deadline(),
    ], as(s));
  });
  await both("LP transfer, approve, allowance, transfer_from, burn", async (s) => {
    const p = s.pairs["weth/xlm"];
    const seq = node.latestLedger().sequence;
    return [
      await outcome(node.invoke(p, "transfer", [s.actor, admin.publicKey(), 10n], as(s))),
      await outcome(node.invoke(p, "approve", [s.actor, admin.publicKey(), 50n, seq + 100], as(s))),
      await outcome(node.view(p, "allowance", [s.actor, admin.publicKey()])),
      await outcome(
        node.invoke(p, "transfer_from", [admin.publicKey(), s.actor, feeTo.publicKey(), 20n], {
          source: admin.publicKey(),
        }),
      ),
      await outcome(node.view(p, "allowance", [s.actor, admin.publicKey()])),
      await outcome(
        node.invoke(p, "transfer_from", [admin.publicKey(), s.actor, feeTo.publicKey(), 31n], {
          source: admin.publicKey(),
        }),
      ),
      await outcome(node.invoke(p, "burn", [s.actor, 5n], as(s))),
      await outcome(node.invoke(p, "transfer", [s.actor, admin.publicKey(), 10n ** 30n], as(s))),
      await outcome(node.invoke(p, "transfer", [s.actor, admin.publicKey(), -1n], as(s))),
      await outcome(node.view(p, "total_supply")),
    ];
  });
  await both("skim and sync", async (s) => {
    const p = s.pairs["xlm/usdc"];
    await node.invoke(usdc, "transfer", [s.actor, p, 3n], as(s));
    return [
      await outcome(node.invoke(p, "skim", [feeTo.publicKey()])),
      await outcome(node.invoke(p, "sync", [])),
    ];
  });
  await state("at the end");

  // 7. Events of every router, factory and pair, in order.
  await node.closeLedgers(1);
  for (const role of ["router", "factory", "pair:xlm/usdc", "pair:weth/xlm"]) {
    const lists: string[][] = [];
    for (const s of sides) {
      const id = [...s.roles].find(([, r]) => r === role)![0];
      const evs = await contractEvents(node, id);
      lists.push(evs.map((e) => json(norm(e, s.roles))));
      if (s.label === "real") tally.events += evs.length;
    }
    steps.push(`events of ${role}`);
    const [a, b] = lists;
    if (a.length !== b.length) {
      differences.push(`events of ${role}: ${a.length} (ours) vs ${b.length} (real)`);
    }
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (a[i] !== b[i]) differences.push(`event #${i} of ${role}: ours ${a[i]} ≠ real ${b[i]}`);
    }
  }
  console.log(
    `differential: ${steps.length} comparisons (official side: ${tally.ok} values, ${tally.contractErr} contract errors, ${tally.trap} host errors; ${tally.events} events compared), ${differences.length} differences`,
  );
  // The script must exercise both success and failure paths, and events.
  assert.ok(tally.ok > 40 && tally.contractErr > 15 && tally.trap >= 2 && tally.events > 40);
  assert.deepEqual(differences, []);
}

/** All events of a contract: [topics..., data] natively. */
async function contractEvents(node: TestNode, id: string): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const r = await node.server.getEvents(
      cursor
        ? { filters: [{ type: "contract", contractIds: [id] }], cursor, limit: 1000 }
        : { filters: [{ type: "contract", contractIds: [id] }], startLedger: 2, limit: 1000 },
    );
    for (const e of r.events) {
      out.push({
        topics: e.topic.map((t: xdr.ScVal) => scValToNative(t)),
        data: scValToNative(e.value),
      });
    }
    if (r.events.length === 0 || r.cursor === cursor) break;
    cursor = r.cursor;
  }
  return out;
}

void Keypair;
