/**
 * The race (issue 26): the demo's market on the realistic node (1 s ledgers) with Vigil's two
 * demo keepers (child processes, started as `main.ts demo` starts them) against a competitor
 * written from the Blend auctioneer bot's published rules (`race_competitor.ts`), for a fixed
 * number of minutes with a fixed seed. At the end it reads the pool's `fill_auction` events and
 * prints one line:
 *
 *   race: vigil <n> competitor <m> share <p> % below_min_profit <k> median_ledgers_after_first_profitable <x>
 *
 * - who filled: the event's filler (Vigil's liquidator contract or the competitor's account);
 * - `below_min_profit`: Vigil fills whose oracle lot/bid ratio, at the prices in force when the
 *   fill transaction executed, is below MIN_PROFIT (1.02);
 * - `median_ledgers_after_first_profitable`: over Vigil's fills, fill ledger minus the auction's
 *   first block whose ratio, at THAT block's prices, clears MIN_PROFIT.
 *
 * Prices in force when a fill executed (issue 26, `price_replay.ts`): the oracle's prices are
 * replayed from its own `update` events (asset, price) in application order, starting from a reading taken before the
 * market driver starts. Within the fill's ledger a price write counts when it applied before the
 * fill: an oracle transaction earlier in the ledger's application order (getTransactions; the
 * event ids carry the same order), or a direct write of the local node (the market driver's
 * `invoke`, which is applied into the open ledger at once, so before every transaction of that
 * ledger, although its event is listed after them; such an event's transaction hash is not among
 * the ledger's transactions). A block's prices for the first profitable block are the prices at
 * its close. As an independent cross-check the in-process readings taken as each ledger closed
 * are compared with the replay and the number of ledgers that differ is printed (they agreed on
 * all 127 ledgers of a 2-minute run; the readings cannot order writes inside a ledger, so they no
 * longer judge a fill). The reserves' rates are read once at the end
 * (they move by far less than the 2 % rule over a few minutes).
 *
 * The DEX pairs stay within ±0.5 % of the oracle (`demo/arbitrageur.ts`, the band is the pair's
 * 0.3 % fee plus a 0.2 % margin for a CEX arbitrageur's other leg): on a real network
 * arbitrageurs keep Soroswap near the CEX price, and without them every Vigil fill's sale pushes
 * the pairs away from the oracle until, after some minutes, a lot's DEX value no longer covers a
 * flash and the bench measures that drift (44 % in 10 min) instead of the race.
 * `--no-arbitrage` runs without it, `--arbitrage-band-bps <n>` with another band. Seed 26, 8 min
 * (2026-11-28, 2 shared cores): without it the primary pairs ended 2.4–2.5 % below the oracle and
 * Vigil took 7 fills to 15 (32 %); with it 10 to 12 (45 %), the pairs within 0.5 %.
 *
 * `deno task bench race [--minutes 4.5] [--seed 26] [--ledger-ms 1000] [--no-arbitrage]
 * [--arbitrage-band-bps 50] [--logs FILE] [--keeper-log-level debug]` (the keepers' JSON lines at
 * that level in the log file, for analysis)
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Asset, Keypair, rpc } from "@stellar/stellar-sdk";
import { AuctionData, PoolOracle } from "@blend-capital/blend-sdk";
import { DEMO_VIGIL_CONFIG, startDevNetwork, writeOutFile } from "@vigil/demo/dev_network";
import { startMarketDriver } from "@vigil/demo/market_driver";
import { DEFAULT_BAND_BPS, deviationBps, startArbitrageur } from "@vigil/demo/arbitrageur";
import { sortTokens } from "@vigil/localnet/protocols/dex/math";
import { type KeeperProcess, spawnKeepersInTurn } from "@vigil/demo/keepers";
import { demoKeeperEnv } from "@vigil/demo/demo";
import { seedTrustline } from "@vigil/localnet/dev_setup";
import { stellarAsset } from "@vigil/localnet/protocols/oracle/contract/spec";
import { ChainRpc } from "@vigil/soroban/rpc";
import { valueAt } from "@vigil/keeper/adapters/lending_pool/auction";
import { loadPoolState, type PoolState } from "@vigil/keeper/adapters/lending_pool/pool_state";
import { startCompetitor } from "./race_competitor.ts";
import { contractEvents, priceReplay } from "./price_replay.ts";

const MIN_PROFIT = 1.02;
const E7 = 10_000_000n;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    minutes: { type: "string", default: "4.5" },
    seed: { type: "string", default: "26" },
    "ledger-ms": { type: "string", default: "1000" },
    logs: { type: "string" },
    "no-arbitrage": { type: "boolean", default: false },
    "arbitrage-band-bps": { type: "string", default: String(DEFAULT_BAND_BPS) },
    // The keepers' LOG_LEVEL; given, their JSON lines go to the log file as they are.
    "keeper-log-level": { type: "string" },
  },
});
const minutes = Number(values.minutes);
const seed = Number(values.seed);
const ledgerMs = Number(values["ledger-ms"]);
const bandBps = Number(values["arbitrage-band-bps"]);
const say = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);
const logFile = values.logs ?? await Deno.makeTempFile({ prefix: "race_", suffix: ".log" });
const logOut = await Deno.open(logFile, { write: true, create: true, truncate: true });
const enc = new TextEncoder();
const keep = (line: string) => logOut.writeSync(enc.encode(line + "\n"));

const arbNote = values["no-arbitrage"]
  ? "no arbitrageur"
  : `DEX kept within ${bandBps / 100}% of the oracle`;
say(`race: ${minutes} min, seed ${seed}, ${ledgerMs} ms ledgers, ${arbNote}; logs in ${logFile}`);
const keeperNames = ["keeper1", "keeper2"];
/** Each keeper's log name (KEEPER_NAME, the log lines' prefix) → its account. */
const keeperAccounts = new Map<string, string>();
const network = await startDevNetwork({
  port: 0,
  ledgerMs,
  market: true,
  accounts: ["alice", "bob", ...keeperNames, "competitor"],
  vigilConfig: DEMO_VIGIL_CONFIG,
});
const { net, market, out, vigil } = network;
const chain = new ChainRpc(out.rpcUrl, { networkPassphrase: out.networkPassphrase });
const pool = market!.pools[0].id;
const oracleId = market!.contracts.oracle;
const tokens = {
  usdc: market!.contracts.usdc,
  xlm: market!.contracts.xlm,
  weth: market!.contracts.weth,
};
const prices = new Map<number, Map<string, bigint>>();
const keepers: KeeperProcess[] = [];
const outPath = await Deno.makeTempFile({ prefix: "race_localnet_", suffix: ".json" });
let recorder: ReturnType<typeof setInterval> | undefined;
try {
  for (const [name, amount] of Object.entries({ alice: 60_000n * E7, bob: 40_000n * E7 })) {
    await net.invoke(vigil.vault, "deposit", { depositor: out.accounts[name].public, amount }, {
      source: out.accounts[name].public,
    });
  }
  // The competitor's own inventory: 1M USDC, its 10,000 XLM and 100 WETH (a WETH lot lands there).
  const comp = Keypair.fromSecret(out.accounts.competitor.secret);
  const usdcIssuer = out.accounts.usdc_issuer.public;
  seedTrustline(net, comp.publicKey(), new Asset("USDC", usdcIssuer), 1_000_000n * E7);
  seedTrustline(
    net,
    comp.publicKey(),
    new Asset("WETH", market!.accounts.weth_issuer.public),
    100n * E7,
  );
  await net.closeLedgers(1);
  await writeOutFile(outPath, out);

  // Prices in force in each ledger: read as soon as it closed.
  let seen = 0;
  let reading = false;
  recorder = setInterval(async () => {
    const seq = net.latestLedger().sequence;
    if (seq === seen || reading) return;
    reading = true;
    try {
      prices.set(seq, await readPrices());
      seen = seq;
    } finally {
      reading = false;
    }
  }, 20);

  // In turn, as the demo starts them: two registrations in one ledger conflict in the registry.
  const specs = keeperNames.map((name, i) => {
    keeperAccounts.set(`keeper-${i + 1}`, out.accounts[name].public);
    const port = freePort();
    const env = demoKeeperEnv(out, { name, first: i === 0, port, pollInterval: 3, outPath });
    const level = values["keeper-log-level"];
    if (level === undefined) return { name: env.KEEPER_NAME, port, env };
    return { name: env.KEEPER_NAME, port, env: { ...env, LOG_LEVEL: level }, raw: true };
  });
  keepers.push(...await spawnKeepersInTurn(specs, (who, l) => keep(`[${who}] ${l}`)));
  const competitor = startCompetitor({
    rpcUrl: out.rpcUrl,
    networkPassphrase: out.networkPassphrase,
    pool,
    keypair: comp,
    minProfit: MIN_PROFIT,
    log: (l) => keep(`[competitor] ${l}`),
  });
  // The replay's starting point: the prices before the driver writes any (nothing else does).
  const seedLedger = net.latestLedger().sequence;
  const seedPrices = await readPrices();
  const driver = startMarketDriver(net, market!, { seed, log: (l) => keep(`[market] ${l}`) });
  const arb = values["no-arbitrage"]
    ? undefined
    : startArbitrageur(net, market!, { bandBps, log: (l) => keep(`[arb] ${l}`) });
  const startLedger = net.latestLedger().sequence;
  say(`race: running from ledger ${startLedger}…`);
  await new Promise((r) => setTimeout(r, minutes * 60_000));
  await driver.stop();
  await arb?.stop();
  await competitor.stop();
  // Transactions in flight land (or expire) before the count.
  await new Promise((r) => setTimeout(r, 3 * ledgerMs));
  await Promise.all(keepers.map((k) => k.stop()));
  clearInterval(recorder);
  say(
    `race: market ${driver.stats.shocks} shocks ${driver.stats.borrowers} borrowers; ` +
      (arb
        ? `arbitrageur ${arb.stats.swaps} swaps ${arb.stats.errors} errors; `
        : "no arbitrageur; ") +
      `competitor sent ${competitor.stats.sent} filled ${competitor.stats.filled}`,
  );
  say(`race: primary DEX vs oracle at the end: ${await dexVsOracle()}`);
  await report(startLedger, comp.publicKey(), { ledger: seedLedger, prices: seedPrices });
} finally {
  clearInterval(recorder);
  await Promise.all(keepers.map((k) => k.stop()));
  chain.close();
  await net.close();
  logOut.close();
  await Deno.remove(outPath).catch(() => {});
}

async function report(
  startLedger: number,
  competitorId: string,
  seedAt: { ledger: number; prices: Map<string, bigint> },
): Promise<void> {
  const server = new rpc.Server(out.rpcUrl, { allowHttp: true });
  const evs = await contractEvents(server, [pool], startLedger);
  const replay = await priceReplay(server, oracleId, seedAt);
  const state = await loadPoolState(chain, pool, {});
  const withPrices = (m: Map<string, bigint>): PoolState => {
    const map = new Map<string, { price: bigint; timestamp: number }>();
    for (const [a, p] of m) map.set(a, { price: p, timestamp: 0 });
    return { ...state, oracle: new PoolOracle(oracleId, map, state.oracle.decimals, 0) };
  };
  // A block's prices: those at its close (first profitable block).
  const ratioAt = (user: string, data: AuctionData, block: number): number =>
    valueAt(withPrices(replay.atClose(block)), user, data, block).ratio;
  const lastLedger = Math.max(net.latestLedger().sequence, ...prices.keys());
  // The independent cross-check: in-process readings as each ledger closed vs the replay.
  let compared = 0, differ = 0;
  for (const [seq, m] of prices) {
    if (seq <= seedAt.ledger) continue;
    compared++;
    const r = replay.atClose(seq);
    if ([...m].some(([a, p]) => r.get(a) !== p)) differ++;
  }
  say(
    `race: price replay vs in-process readings at ledger close: ${compared} ledgers, ${differ} differ`,
  );
  const vigilFillers = new Set([
    vigil.liquidator,
    ...keeperNames.map((n) => out.accounts[n].public),
  ]);
  let vigilFills = 0, compFills = 0, other = 0, below = 0;
  const after: number[] = [];
  const auctions = new Map<string, AuctionData>();
  /** Each user's fillers (accounts), for the lost races below. */
  const fillers = new Map<string, Set<string>>();
  for (const e of evs) {
    if (Number(e.topics[1]) !== 0) continue;
    const user = String(e.topics[2]);
    if (e.name === "new_auction") auctions.set(user, auctionData(e.value));
    if (e.name !== "fill_auction") continue;
    const data = auctions.get(user);
    const [filler, percent] = e.value as [string, bigint];
    fillers.set(user, (fillers.get(user) ?? new Set()).add(String(filler)));
    // Vigil's keepers fill through the liquidator (the fill's `from` is the keeper's account).
    const who = vigilFillers.has(String(filler))
      ? "vigil"
      : filler === competitorId
      ? "competitor"
      : "other";
    if (!data) {
      keep(`[race] fill of ${user} in ${e.ledger} by ${who}: auction created before the start`);
      continue;
    }
    // The prices in force when the fill transaction executed.
    const inForce = await replay.beforeEvent(e);
    const ratio = valueAt(withPrices(inForce), user, data, e.ledger).ratio;
    const closeRatio = ratioAt(user, data, e.ledger);
    let first: number | undefined;
    for (let b = data.block; b <= lastLedger; b++) {
      if (ratioAt(user, data, b) >= MIN_PROFIT) {
        first = b;
        break;
      }
    }
    const x = first === undefined ? undefined : e.ledger - first;
    say(
      `race: ${who.padEnd(10)} filled ${percent}% of ${
        user.slice(0, 6)
      }… in ledger ${e.ledger}: ratio ${ratio.toFixed(4)} (at close ${
        closeRatio.toFixed(4)
      }), first profitable ${first ?? "-"}, ledgers after ${x ?? "-"}`,
    );
    if (who === "vigil") {
      vigilFills++;
      if (!(ratio >= MIN_PROFIT)) below++;
      if (x !== undefined) after.push(x);
    } else if (who === "competitor") compFills++;
    else other++;
  }
  const share = vigilFills + compFills === 0 ? 0 : (100 * vigilFills) / (vigilFills + compFills);
  const sorted = after.sort((a, b) => a - b);
  const median = sorted.length === 0
    ? "-"
    : sorted.length % 2
    ? String(sorted[(sorted.length - 1) / 2])
    : String((sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2);
  if (other > 0) say(`race: ${other} fill(s) by neither`);
  const lost = await lostRaces(fillers);
  say(
    `race: lost races logged by Vigil's keepers: ${lost.all} (auction filled by the other Vigil ` +
      `keeper ${lost.toVigil}, by the competitor ${lost.toCompetitor}, by both ${lost.toBoth})`,
  );
  console.log(
    `race: vigil ${vigilFills} competitor ${compFills} share ${
      share.toFixed(0)
    } % below_min_profit ${below} median_ledgers_after_first_profitable ${median}`,
  );
}

/** The oracle's prices of the three tokens now (in-process). */
async function readPrices(): Promise<Map<string, bigint>> {
  const m = new Map<string, bigint>();
  for (const id of Object.values(tokens)) {
    const p = await net.view<{ price: bigint } | undefined>(oracleId, "lastprice", {
      asset: stellarAsset(id),
    });
    if (p) m.set(id, BigInt(p.price));
  }
  return m;
}

/** Each primary pair's price of its first token (in the second) against the oracle's. */
async function dexVsOracle(): Promise<string> {
  const c = market!.contracts;
  const parts: string[] = [];
  for (const [b, a] of [["xlm", "usdc"], ["weth", "usdc"], ["weth", "xlm"]]) {
    const pair = await net.view<string>(c.soroswap_factory, "get_pair", {
      token_a: c[a],
      token_b: c[b],
    });
    const [r0, r1] = await net.view<[bigint, bigint]>(pair, "get_reserves", []);
    const [ra, rb] = sortTokens(c[a], c[b])[0] === c[a] ? [r0, r1] : [r1, r0];
    const price = async (n: string) =>
      BigInt(
        (await net.view<{ price: bigint }>(oracleId, "lastprice", { asset: stellarAsset(c[n]) }))
          .price,
      );
    const dev = deviationBps(ra, rb, await price(a), await price(b));
    parts.push(
      `${b.toUpperCase()}/${a.toUpperCase()} ${dev >= 0 ? "+" : ""}${(dev / 100).toFixed(2)}%`,
    );
  }
  return parts.join(", ");
}

function auctionData(v: unknown): AuctionData {
  const raw = (Array.isArray(v) ? v[1] : v) as {
    bid: Record<string, bigint>;
    lot: Record<string, bigint>;
    block: number;
  };
  return new AuctionData(
    new Map(Object.entries(raw.bid).map(([k, x]) => [k, BigInt(x)])),
    Number(raw.block),
    new Map(Object.entries(raw.lot).map(([k, x]) => [k, BigInt(x)])),
  );
}

/**
 * The lost races Vigil's keepers logged (once per keeper and auction: the info line names the
 * user as `GABC…WXYZ`, the debug line in full), each classed by who filled that user's auction
 * according to the pool's `fill_auction` events: the other Vigil keeper (the split's backups and
 * primaries crossing), the competitor, or both (a part fill).
 */
async function lostRaces(
  fillers: ReadonlyMap<string, ReadonlySet<string>>,
): Promise<{ all: number; toVigil: number; toCompetitor: number; toBoth: number }> {
  const text = await Deno.readTextFile(logFile);
  const vigilKeepers = new Set(keeperAccounts.values());
  const seen = new Set<string>();
  const out = { all: 0, toVigil: 0, toCompetitor: 0, toBoth: 0 };
  for (const line of text.split("\n")) {
    const m = /^\[(keeper-\d+)\] /.exec(line);
    if (!m) continue;
    const named = /lost the race for (G[A-Z2-7]{3})…([A-Z2-7]{4})/.exec(line) ??
      /already filled by another keeper: (G[A-Z2-7]{3})[A-Z2-7]{48}([A-Z2-7]{4})/.exec(line);
    if (!named) continue;
    const [, head, tail] = named;
    const key = `${m[1]} ${head}${tail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.all++;
    const me = keeperAccounts.get(m[1]);
    const by = new Set<string>();
    for (const [user, fs] of fillers) {
      if (user.startsWith(head) && user.endsWith(tail)) { for (const f of fs) by.add(f); }
    }
    const otherVigil = [...by].some((f) => f !== me && vigilKeepers.has(f));
    const competitor = [...by].some((f) => !vigilKeepers.has(f));
    if (otherVigil && competitor) out.toBoth++;
    else if (otherVigil) out.toVigil++;
    else if (competitor) out.toCompetitor++;
  }
  return out;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}
