/**
 * The keeper HTTP API against a real chain: the local node with the market scenario, a funded
 * Vigil vault, and the keeper as an operator runs it (`deno run -A main.ts keeper`, a child
 * process). Borrowers are pushed underwater with `localnet_shock`, the keeper liquidates them for
 * real, and then every endpoint is checked for shape and for content against the chain, read
 * independently (simulation over JSON-RPC, contract events, the Blend SDK, getTransaction).
 * The last step stops the keeper and scans everything it ever emitted for its secret.
 */
import assert from "node:assert/strict";
import { PoolV2, PositionsEstimate } from "@blend-capital/blend-sdk";
import { Keypair, nativeToScVal, rpc, StrKey } from "@stellar/stellar-sdk";
import { loadConfig } from "@vigil/keeper/config";
import { createKeeperContext } from "@vigil/keeper/context";
import { Logger } from "@vigil/keeper/log/logger";
import { contractId, validEnv } from "@vigil/testing/keeper/keeper_process";
import {
  events,
  keeperEnv,
  shock,
  startWorld,
  type World,
} from "@vigil/testing/keeper/keeper_fixture";
import {
  type LiveKeeper,
  metricSum,
  metricValue,
  openSse,
  parseMetrics,
  poll,
  simulateRead,
  sseEvents,
  type SseReader,
  startMainKeeper,
} from "@vigil/testing/keeper/live_keeper";

const DIGITS = /^\d+$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const HEX64 = /^[0-9a-f]{64}$/;
const E7 = 10_000_000n;
/** Deno's "Download https://…" note on stderr, with or without colour codes. */
const ANSI = `(?:${String.fromCharCode(27)}\\[[0-9;]*m)*`;
const DENO_DOWNLOAD = new RegExp(`^${ANSI}Download${ANSI} https?://`);

// deno-lint-ignore no-explicit-any
type Json = any;

/** `units` (7 decimals) as the decimal number a Prometheus gauge in USDC should show. */
function usdc(units: bigint): number {
  return Number(`${units / E7}.${(units % E7).toString().padStart(7, "0")}`);
}

/** Relative closeness of two positive numbers. */
function close(a: number, b: number, rel: number): boolean {
  return Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));
}

Deno.test({
  name: "live keeper API: every endpoint after a real liquidation; the secret never leaves",
  sanitizeOps: true,
  sanitizeResources: true,
  fn: async (t) => {
    const t0 = Date.now();
    const w: World = await startWorld({ ledgerMs: 100 });
    const keeper = w.keepers[0];
    const secret = keeper.secret();
    const me = keeper.publicKey();
    const alice = w.depositor.publicKey();
    const nobody = Keypair.random().publicKey(); // a known depositor that never deposited
    const net = { rpcUrl: w.node.rpcUrl, passphrase: w.node.networkPassphrase, source: alice };
    const read = <T = Json>(
      contract: string,
      fn: string,
      args: Parameters<typeof simulateRead>[3],
    ) => simulateRead<T>(net, contract, fn, args);
    const addr = (a: string) => nativeToScVal(a, { type: "address" });

    let k: LiveKeeper | undefined;
    const streams: SseReader[] = [];
    /** Every response the test saw (status line, headers, body), for the secret scan. */
    const seen: string[] = [];
    const get = async (path: string, init?: RequestInit) => {
      const res = await fetch(`${k!.url}${path}`, init);
      const body = await res.text();
      seen.push(
        `${res.status} ${path}\n${
          [...res.headers].map(([h, v]) => `${h}: ${v}`).join("\n")
        }\n\n${body}`,
      );
      return { res, body };
    };
    const getJson = async (path: string): Promise<Json> => {
      const { res, body } = await get(path);
      assert.equal(res.status, 200, `${path}: ${body}`);
      assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
      return JSON.parse(body);
    };
    const scrape = async () => {
      const { res, body } = await get("/metrics");
      assert.equal(res.status, 200);
      return { text: body, m: parseMetrics(body), type: res.headers.get("content-type") };
    };
    const sse = async (headers: Record<string, string> = {}, query = "") => {
      const s = await openSse(k!.url, headers, query);
      streams.push(s);
      return s;
    };
    const closeSse = async (s: SseReader) => {
      await s.close();
      streams.splice(streams.indexOf(s), 1);
      seen.push(s.text());
    };

    let early: SseReader | undefined;
    let follower: { s: SseReader; after: number } | undefined;
    let auctionUsers: string[] = [];
    try {
      // ------------------------------------------------------------------------------------------
      const liquidated = await t.step("a real liquidation by `main.ts keeper`", async () => {
        k = await startMainKeeper(keeperEnv(w, keeper, {
          KNOWN_DEPOSITORS: `${alice}, ${nobody},`,
          LOG_LEVEL: "debug",
        }));
        // A client that follows the whole run (live lines only: it connects without an id).
        early = await sse();
        assert.equal(early.res.status, 200);
        await early.until((b) => b.includes("\n\n"), 5000, "the stream head");

        // borrower_xlm_1 → HF ≈ 0.876, borrower_mixed → ≈ 0.927 (see the market scenario).
        await shock(w, w.xlm, -1500);
        const created = await poll(
          async () => {
            const evs = await events(w, w.pool, "new_auction");
            return evs.length >= 2 ? evs : undefined;
          },
          60_000,
          "the keeper to create two auctions",
        );
        auctionUsers = created.map((e) => String(e.topics[2]));
        // The dashboard shows the open auctions on the positions, with the start block and
        // percent of their new_auction events.
        const shown = await poll(
          async () => {
            const s = await getJson("/api/state?positions=all&events=0");
            const rows = auctionUsers.map((u) =>
              s.positions.find((p: Json) => p.user === u && p.auction !== null)
            );
            return rows.every((r) => r) ? rows : undefined;
          },
          30_000,
          "/api/state to show both auctions",
        );
        for (const [i, e] of created.entries()) {
          const [percent, data] = e.value as [unknown, { block: unknown }];
          assert.deepEqual(shown[i].auction, {
            start_block: Number(data.block),
            percent: Number(percent),
          }, `auction of ${auctionUsers[i]}`);
        }
        // Fast-forward most of the Dutch curve; the keeper picks the fill block itself.
        await w.node.closeLedgers(150);
        // Quiescent: both fills booked, nothing drawn, and the registry row refreshed.
        await poll(
          async () => {
            const p = await getJson("/api/performance");
            const fills = p.liquidations.filter((l: Json) => l.outcome === "filled");
            const self = p.keepers.find((r: Json) => r.address === me);
            return fills.length >= 2 && p.vault?.active_liq === "0" &&
              self?.successful_fills === String(p.keeper_stats.fills);
          },
          90_000,
          "two filled liquidations in /api/performance",
        );
      });

      // Every check below needs the keeper running after a real liquidation.
      if (!liquidated) throw new Error("no real liquidation happened: endpoint checks skipped");

      // ------------------------------------------------------------------------------------------
      await t.step("GET /healthz: 200 with an empty body", async () => {
        const { res, body } = await get("/healthz");
        assert.equal(res.status, 200);
        assert.equal(body, "");
        const head = await get("/healthz", { method: "HEAD" });
        assert.equal(head.res.status, 200);
      });

      // ------------------------------------------------------------------------------------------
      await t.step(
        "GET /api/state: keeper, registry keepers, positions, events, vault",
        async () => {
          // The registry rows equal the registry read independently (retried: refreshes each cycle).
          // Issue 20: paged (at most 100 per call), the count from get_keeper_count.
          const registered = await read<string[]>(w.registry, "get_keepers", [
            nativeToScVal(0, { type: "u32" }),
            nativeToScVal(100, { type: "u32" }),
          ]);
          const count = await read<number>(w.registry, "get_keeper_count", []);
          assert.ok(registered.includes(me), "the keeper registered itself");
          const expectRows = async () =>
            await Promise.all(registered.map(async (a) => {
              const r = await read(w.registry, "get_keeper", [addr(a)]);
              return {
                address: a,
                name: r.name,
                is_self: a === me,
                stake: String(r.stake),
                active: r.active ?? null,
                // Removed from KeeperInfo by issue 12 (no draws): the API keeps the fields, null.
                has_active_draw: null,
                draw_marked_at: null,
                registered_at: new Date(Number(r.registered_at) * 1000).toISOString(),
                total_executions: String(r.total_executions),
                successful_fills: String(r.successful_fills),
                total_profit: String(r.total_profit),
                avg_response_time_ms: Number(r.avg_response_time_ms),
              };
            }));
          let s: Json;
          let expected: Json;
          await poll(
            async () => {
              s = await getJson("/api/state?positions=all&events=500");
              expected = await expectRows();
              try {
                assert.deepEqual(s.keepers, expected);
                return true;
              } catch {
                return false;
              }
            },
            20_000,
            "registry rows equal to get_keeper",
          ).catch(() => {});
          assert.deepEqual(s.keepers, expected);
          assert.equal(s.keepers_total, Number(count));
          const self = s.keepers.find((r: Json) => r.is_self);
          assert.equal(self.address, me);
          assert.ok(BigInt(self.successful_fills) >= 2n, "on-chain fill counter");
          assert.ok(BigInt(self.total_profit) > 0n, "on-chain profit counter");
          assert.ok(self.avg_response_time_ms > 0);
          assert.match(s.keepers_read_at, ISO);

          // The keeper block.
          assert.equal(s.api_version, 1);
          assert.match(s.generated_at, ISO);
          const kb = s.keeper;
          assert.equal(kb.address, me);
          assert.equal(kb.name, `keeper-${me.slice(0, 4)}`);
          assert.equal(kb.mode, "liquidation");
          assert.match(kb.started_at, ISO);
          assert.ok(Number.isInteger(kb.uptime_seconds) && kb.uptime_seconds >= 0);
          assert.equal(kb.network_passphrase, w.node.networkPassphrase);
          assert.equal(kb.vault_contract, w.vault);
          assert.equal(kb.registry_contract, w.registry);
          assert.equal(kb.lending_pool, w.pool);
          assert.equal(kb.usdc_contract, w.usdc);
          assert.equal(kb.poll_interval_seconds, 3);
          const head = await new rpc.Server(w.node.rpcUrl, { allowHttp: true }).getLatestLedger();
          assert.ok(kb.latest_ledger > 0 && kb.latest_ledger <= head.sequence, "latest_ledger");
          assert.ok(kb.last_cycle.number >= 2);
          assert.match(kb.last_cycle.started_at, ISO);
          assert.ok(Number.isInteger(kb.last_cycle.duration_ms) && kb.last_cycle.duration_ms >= 0);
          assert.ok(Number.isInteger(kb.last_cycle.errors));

          // Positions: every market borrower, riskiest first, HF null exactly without debt (the
          // keeper's index drops positions without debt, so live rows all have an HF).
          const ps: Json[] = s.positions;
          for (const b of w.market.borrowers) {
            assert.ok(ps.some((p) => p.user === b.public), `position of ${b.name} tracked`);
          }
          // The open auctions of the first step may be filled by now; any shown has this shape
          // (their values were checked against the new_auction events in the first step).
          for (const p of ps.filter((p) => p.auction !== null)) {
            assert.deepEqual(Object.keys(p.auction).sort(), ["percent", "start_block"]);
            assert.ok(Number.isInteger(p.auction.start_block));
            assert.ok(p.auction.percent === null || Number.isInteger(p.auction.percent));
          }
          let prev = -Infinity;
          let seenNull = false;
          for (const p of ps) {
            assert.deepEqual(Object.keys(p).sort(), [
              "auction",
              "collateral_value",
              "health_factor",
              "liabilities_value",
              "pool",
              "underwater",
              "updated_at",
              "user",
            ]);
            assert.equal(p.pool, w.pool);
            assert.ok(StrKey.isValidEd25519PublicKey(p.user), p.user);
            assert.match(p.collateral_value, DIGITS);
            assert.match(p.liabilities_value, DIGITS);
            assert.match(p.updated_at, ISO);
            if (p.health_factor === null) {
              assert.equal(p.liabilities_value, "0", "HF null only without debt");
              assert.equal(p.underwater, false);
              seenNull = true;
            } else {
              assert.ok(Number.isFinite(p.health_factor) && p.health_factor > 0);
              assert.notEqual(p.liabilities_value, "0");
              assert.equal(p.underwater, p.health_factor < 1);
              assert.ok(!seenNull, "positions without debt come last");
              assert.ok(p.health_factor >= prev, "sorted riskiest first");
              prev = p.health_factor;
            }
          }
          const sum = s.positions_summary;
          assert.equal(sum.tracked, ps.length);
          assert.equal(sum.shown, ps.length);
          assert.equal(sum.truncated, false);
          assert.equal(sum.with_debt, ps.filter((p) => p.health_factor !== null).length);
          assert.equal(sum.underwater, ps.filter((p) => p.underwater).length);
          assert.ok(sum.with_debt >= w.market.borrowers.length);

          // Health factors equal Blend's own math (SDK over RPC), within interest accrual.
          const network = {
            rpc: w.node.rpcUrl,
            passphrase: w.node.networkPassphrase,
            opts: { allowHttp: true },
          };
          const mismatches = async (rows: Json[]) => {
            const pool = await PoolV2.load(network, w.pool);
            const oracle = await pool.loadOracle();
            const bad: string[] = [];
            for (const p of rows.filter((r) => r.health_factor !== null)) {
              const user = await pool.loadUser(p.user);
              const est = PositionsEstimate.build(pool, oracle, user.positions);
              const hf = est.totalEffectiveCollateral / est.totalEffectiveLiabilities;
              const coll = est.totalEffectiveCollateral * 1e7;
              const liab = est.totalEffectiveLiabilities * 1e7;
              if (
                !close(p.health_factor, hf, 1e-4) ||
                !close(Number(p.collateral_value), coll, 1e-4) ||
                !close(Number(p.liabilities_value), liab, 1e-4)
              ) {
                bad.push(
                  `${p.user}: api hf ${p.health_factor} coll ${p.collateral_value} liab ${p.liabilities_value}; sdk hf ${hf} coll ${coll} liab ${liab}`,
                );
              }
            }
            return bad;
          };
          let bad: string[] = [];
          await poll(
            async () => {
              const rows = (await getJson("/api/state?positions=all&events=0")).positions;
              bad = await mismatches(rows);
              return bad.length === 0;
            },
            20_000,
            "health factors equal to the Blend SDK's",
          ).catch(() => {});
          assert.deepEqual(bad, []);

          // Event lines: ids strictly increasing, the fill is among them.
          const evs: Json[] = s.events;
          assert.ok(evs.length > 10);
          for (const [i, e] of evs.entries()) {
            assert.deepEqual(Object.keys(e).sort(), ["id", "level", "plain", "text", "ts"]);
            assert.ok(e.plain.length > 0 && !/[\r\n]/.test(e.plain), e.plain);
            assert.ok(Number.isSafeInteger(e.id));
            if (i > 0) assert.ok(e.id > evs[i - 1].id, "ids increase");
            assert.match(e.ts, ISO);
            assert.ok(["debug", "info", "warn", "error"].includes(e.level), e.level);
            assert.ok(e.text.startsWith(`${e.ts} ${e.level.toUpperCase()} `), e.text);
            assert.ok(!/[\r\n]/.test(e.text));
          }
          const filled = evs.filter((e) => /liquidation filled/.test(e.text));
          assert.ok(filled.length >= 2, "the fills are in the event log");
          // events=N limits to the newest N.
          const few = await getJson("/api/state?events=3&positions=0");
          assert.equal(few.events.length, 3);
          assert.deepEqual(few.positions, []);
          assert.ok(few.events[2].id >= evs[evs.length - 1].id);

          // The vault block equals get_state read by simulation (retried: a refresh may be between).
          let vault: Json;
          let chain: Json;
          await poll(
            async () => {
              vault = (await getJson("/api/state?events=0&positions=0")).vault;
              chain = await read(w.vault, "get_state", []);
              return ["total_usdc", "total_shares", "total_profit", "active_liq"].every((f) =>
                vault[f] === String(chain[f])
              );
            },
            20_000,
            "vault equal to get_state",
          ).catch(() => {});
          assert.equal(vault.total_usdc, String(chain.total_usdc));
          assert.equal(vault.total_shares, String(chain.total_shares));
          assert.equal(vault.total_profit, String(chain.total_profit));
          assert.equal(vault.active_liq, String(chain.active_liq));
          assert.equal(vault.idle, String(chain.total_usdc - chain.active_liq));
          // Issue 20: the fills' profit unlocks over profit_unlock_secs. The API read the vault
          // no later than the test (the lock only shrinks between flashes), and prices shares
          // with the unlocked capital.
          const locked = BigInt(vault.locked_profit);
          assert.ok(locked >= chain.locked_profit && locked > 0n, "the fills' profit is unlocking");
          assert.ok(locked < chain.total_profit, "part of it is already in the price");
          assert.equal(
            vault.share_price,
            String((chain.total_usdc - locked) * E7 / chain.total_shares),
          );
          assert.ok(BigInt(vault.share_price) > E7, "profit raised the share price above 1");
          assert.ok(Date.parse(vault.unlock_end) > Date.parse(vault.read_at) - 3_600_000);
          const now = await new rpc.Server(w.node.rpcUrl, { allowHttp: true }).getLatestLedger();
          assert.ok(Number.isInteger(vault.ledger) && vault.ledger > 0);
          assert.ok(vault.ledger <= now.sequence, "read at a ledger that exists");
          assert.match(vault.read_at, ISO);
          const cfg = await read(w.vault, "get_config", []);
          assert.deepEqual(s.vault_config, {
            deposit_cap: String(cfg.deposit_cap),
            withdraw_cooldown_seconds: Number(cfg.withdraw_cooldown),
            max_draw_per_keeper: String(cfg.max_draw_per_keeper),
            min_fill_profit: String(cfg.min_fill_profit),
            policy_delay_seconds: Number(cfg.policy_delay),
            profit_unlock_seconds: Number(cfg.profit_unlock_secs),
          });
          // Nothing is queued in this world.
          assert.deepEqual(s.pending_changes, { flash_policy: null, config: null });
        },
      );

      // ------------------------------------------------------------------------------------------
      await t.step(
        "GET /api/performance: vault, depositors, keeper stats, liquidations",
        async () => {
          // A consistent snapshot: the chain did not move while /api/performance was read, and
          // the keeper had booked everything the vault had (retried: it keeps working).
          let p: Json;
          let chain: Json;
          await poll(
            async () => {
              const before = await read(w.vault, "get_state", []);
              p = await getJson("/api/performance");
              chain = await read(w.vault, "get_state", []);
              const booked = p.liquidations.reduce(
                (a: bigint, l: Json) => a + BigInt(l.profit),
                0n,
              );
              return before.total_profit === chain.total_profit && chain.active_liq === 0n &&
                p.vault.total_profit === String(chain.total_profit) &&
                booked === chain.total_profit &&
                p.keepers.find((r: Json) => r.is_self)?.successful_fills ===
                  String(p.keeper_stats.fills);
            },
            30_000,
            "a settled /api/performance",
          ).catch(() => {});
          assert.equal(p.api_version, 1);
          assert.match(p.generated_at, ISO);
          assert.equal(p.vault.total_usdc, String(chain.total_usdc));
          assert.equal(p.vault.total_profit, String(chain.total_profit));
          assert.equal(p.vault.total_shares, String(chain.total_shares));

          // Depositors: KNOWN_DEPOSITORS in order, balances as the vault reports them.
          assert.deepEqual(p.depositors.map((d: Json) => d.address), [alice, nobody]);
          const bal = await read(w.vault, "balance", [addr(alice)]);
          assert.equal(p.depositors[0].shares, String(bal.shares));
          // The value grows every ledger while the fills' profit unlocks (issue 20): the keeper's
          // read came first, so it is at most what the vault says now.
          assert.ok(BigInt(p.depositors[0].usdc_value) <= bal.usdc_value, "value read earlier");
          assert.ok(BigInt(p.depositors[0].usdc_value) > 50_000n * E7, "alice earned the profit");
          assert.equal(p.depositors[1].shares, "0");
          assert.equal(p.depositors[1].usdc_value, "0");
          for (const d of p.depositors) assert.match(d.read_at, ISO);

          // Liquidation history, newest first; each fill checked against the chain.
          const fills: Json[] = p.liquidations.filter((l: Json) => l.outcome === "filled");
          assert.ok(fills.length >= 2);
          for (let i = 1; i < p.liquidations.length; i++) {
            assert.ok(p.liquidations[i - 1].time >= p.liquidations[i].time, "newest first");
          }
          const fillEvents = await events(w, w.pool, "fill_auction");
          const auctionEvents = await events(w, w.pool, "new_auction");
          const flashes = await events(w, w.vault, "flash");
          const server = new rpc.Server(w.node.rpcUrl, { allowHttp: true });
          let drew = 0n, proceeds = 0n, profit = 0n;
          for (const l of fills) {
            assert.equal(l.adapter, "lending_pool");
            assert.equal(l.pool, w.pool);
            assert.ok(auctionUsers.includes(l.user), `filled user ${l.user}`);
            assert.match(l.drew, DIGITS);
            assert.match(l.proceeds, DIGITS);
            assert.match(l.profit, DIGITS);
            assert.equal(
              BigInt(l.profit),
              BigInt(l.proceeds) - BigInt(l.drew),
              "profit = proceeds − drew",
            );
            assert.ok(BigInt(l.profit) > 0n);
            assert.ok(Number.isInteger(l.response_time_ms) && l.response_time_ms > 0);
            assert.match(l.tx_hash, HEX64);
            assert.match(l.time, ISO);
            assert.ok(Date.parse(l.time) >= t0 && Date.parse(l.time) <= Date.now());
            assert.equal(l.keeper, me);
            assert.equal(l.keeper_name, `keeper-${me.slice(0, 4)}`);
            // The fill transaction exists and succeeded; it is the pool's fill_auction of this user.
            const tx = await server.getTransaction(l.tx_hash);
            assert.equal(tx.status, rpc.Api.GetTransactionStatus.SUCCESS, `tx ${l.tx_hash}`);
            const fe = fillEvents.find((e) => e.txHash === l.tx_hash);
            assert.ok(fe, `a fill_auction event in tx ${l.tx_hash}`);
            assert.equal(fe.topics[2], l.user);
            assert.equal((fe.value as [string, bigint])[0], me);
            assert.equal(l.ledger, fe.ledger);
            // The auction it filled was created by a new_auction event at auction_block.
            assert.ok(Number.isInteger(l.auction_block) && l.auction_block <= l.ledger);
            assert.ok(
              auctionEvents.some((e) =>
                e.topics[2] === l.user &&
                Number((e.value as [unknown, { block: number }])[1].block) === l.auction_block
              ),
              `a new_auction of ${l.user} at block ${l.auction_block}`,
            );
            // Drew and proceeds are the amounts the vault's flash booked, in the same transaction.
            assert.ok(
              flashes.some((r) => {
                const [amount, returned, prof] = r.value as bigint[];
                return r.topics.includes(me) && r.txHash === l.tx_hash &&
                  returned === BigInt(l.proceeds) && amount === BigInt(l.drew) &&
                  prof === BigInt(l.profit);
              }),
              `a vault flash event for ${l.drew} → ${l.proceeds} in ${l.tx_hash}`,
            );
            drew += BigInt(l.drew);
            proceeds += BigInt(l.proceeds);
            profit += BigInt(l.profit);
          }
          // Every profit the vault booked came from these fills (fresh vault: no earlier profit).
          assert.equal(String(chain.total_profit), String(profit));

          const st = p.keeper_stats;
          assert.equal(st.name, `keeper-${me.slice(0, 4)}`);
          assert.equal(st.address, me);
          assert.ok(st.cycles >= 2);
          assert.equal(
            st.fills,
            fills.length + p.liquidations.filter((l: Json) => l.outcome === "held").length,
          );
          assert.equal(st.total_drew, String(drew));
          assert.equal(st.total_proceeds, String(proceeds));
          assert.equal(st.total_profit, String(profit));
          const rts = fills.map((l) => l.response_time_ms);
          assert.equal(
            st.avg_response_time_ms,
            Math.round(rts.reduce((a, b) => a + b, 0) / rts.length),
          );
          assert.equal(st.outstanding_draw, "0");
          assert.match(st.native_balance, DIGITS);
          assert.ok(BigInt(st.native_balance) > 0n);
          assert.equal(st.last_liquidation_at, p.liquidations[0].time);
          assert.ok(Number.isInteger(st.errors));
          // The response times are the ones reported on chain: the registry's average over this
          // keeper's fills (fresh registry: all of them are in the history) is their floor mean.
          const selfRow = p.keepers.find((r: Json) => r.is_self);
          assert.equal(selfRow.address, me);
          assert.equal(selfRow.successful_fills, String(fills.length));
          assert.equal(
            selfRow.avg_response_time_ms,
            Math.floor(rts.reduce((a, b) => a + b, 0) / rts.length),
          );
          // The share-price series has points, the newest equal to the vault's price.
          assert.ok(p.share_price_series.length >= 1);
          const last = p.share_price_series[p.share_price_series.length - 1];
          assert.equal(last.total_usdc, p.vault.total_usdc);
          assert.equal(last.share_price, p.vault.share_price);
        },
      );

      // ------------------------------------------------------------------------------------------
      await t.step("GET /metrics: names, types, and values that follow the chain", async () => {
        const a = await scrape();
        assert.equal(a.type, "text/plain; version=0.0.4; charset=utf-8");
        const types: Record<string, string> = {
          keeper_cycles_total: "counter",
          keeper_liquidations_total: "counter",
          keeper_vault_tvl: "gauge",
          keeper_sse_active: "gauge",
          keeper_cycle_duration_seconds: "histogram",
          keeper_liquidation_attempts_total: "counter",
          keeper_profit_usdc_total: "counter",
          keeper_errors_total: "counter",
          keeper_rpc_requests_total: "counter",
          keeper_rpc_failures_total: "counter",
          keeper_rpc_duration_seconds: "histogram",
          keeper_outstanding_draw_usdc: "gauge",
          keeper_native_balance_xlm: "gauge",
          keeper_info: "gauge",
          process_cpu_seconds_total: "counter",
          process_resident_memory_bytes: "gauge",
        };
        for (const [name, type] of Object.entries(types)) {
          assert.equal(a.m.types.get(name), type, `# TYPE ${name}`);
        }
        // Every sample belongs to a family with a # TYPE line.
        for (const s of a.m.samples) {
          const family = [s.name, s.name.replace(/_(bucket|sum|count)$/, "")].find((n) =>
            a.m.types.has(n)
          );
          assert.ok(family, `# TYPE for ${s.name}`);
          assert.ok(!Number.isNaN(s.value), `${s.name} value`);
        }
        assert.match(a.text, new RegExp(`keeper_info\\{[^}]*operator="${me}"[^}]*\\} 1`));

        // Cycles increase between two scrapes.
        const c1 = metricValue(a.m, "keeper_cycles_total")!;
        assert.ok(c1 >= 2);
        const b = await poll(
          async () => {
            const s = await scrape();
            return metricValue(s.m, "keeper_cycles_total")! > c1 ? s : undefined;
          },
          20_000,
          "keeper_cycles_total to increase",
          500,
        );
        const c2 = metricValue(b.m, "keeper_cycles_total")!;
        assert.ok(c2 > c1);
        assert.ok(metricValue(b.m, "keeper_cycle_duration_seconds_count")! >= c2);

        // Liquidations count the fills; TVL equals get_state's total_usdc / 1e7 (retried).
        // Scrape and /api/performance back to back, retried until no fill landed in between.
        let p: Json;
        let m = b.m;
        await poll(
          async () => {
            p = await getJson("/api/performance");
            m = (await scrape()).m;
            const again = await getJson("/api/performance");
            return ["fills", "total_profit", "outstanding_draw"].every((f) =>
              again.keeper_stats[f] === p.keeper_stats[f]
            );
          },
          20_000,
          "a stable scrape",
        ).catch(() => {});
        assert.equal(metricSum(m, "keeper_liquidations_total"), p.keeper_stats.fills);
        assert.ok(p.keeper_stats.fills >= 2);
        assert.equal(
          metricSum(m, "keeper_liquidation_attempts_total", 'outcome="filled"'),
          p.liquidations.filter((l: Json) => l.outcome === "filled").length,
        );
        assert.equal(
          metricValue(m, "keeper_profit_usdc_total"),
          usdc(BigInt(p.keeper_stats.total_profit)),
        );
        let tvl: number | undefined;
        let total = 0n;
        await poll(
          async () => {
            const s = await scrape();
            total = (await read(w.vault, "get_state", [])).total_usdc;
            tvl = metricValue(s.m, "keeper_vault_tvl");
            return tvl === usdc(total);
          },
          20_000,
          "keeper_vault_tvl",
        ).catch(() => {});
        assert.equal(tvl, usdc(total), "keeper_vault_tvl = total_usdc / 1e7");
        assert.ok(total > 50_000n * E7);
        // RPC traffic is counted by method.
        for (const method of ["simulateTransaction", "sendTransaction", "getTransaction"]) {
          assert.ok(
            metricValue(b.m, "keeper_rpc_requests_total", `method="${method}"`)! > 0,
            `rpc requests ${method}`,
          );
        }
        assert.equal(
          metricValue(m, "keeper_outstanding_draw_usdc"),
          usdc(BigInt(p.keeper_stats.outstanding_draw)),
        );
        assert.ok(metricValue(b.m, "keeper_native_balance_xlm")! > 0);

        // keeper_sse_active follows the open streams: the early client, then one more.
        assert.equal(metricValue(b.m, "keeper_sse_active"), 1);
        const extra = await sse();
        await extra.until((t) => t.includes(": connected 2/100"), 5000, "second client");
        assert.equal(metricValue((await scrape()).m, "keeper_sse_active"), 2);
        await closeSse(extra);
        await poll(
          async () => metricValue((await scrape()).m, "keeper_sse_active") === 1,
          10_000,
          "keeper_sse_active back to 1",
        );
      });

      // ------------------------------------------------------------------------------------------
      await t.step(
        "GET /api/events: live lines with ids, Last-Event-ID replay, heartbeat",
        async () => {
          const e = early!;
          assert.match(e.text(), /^retry: 3000\n: connected 1\/100\n\n/);
          // The early client saw the whole liquidation live, same ids and text as /api/state.
          const live = sseEvents(e.text());
          assert.ok(live.length > 10);
          for (let i = 1; i < live.length; i++) {
            assert.ok(live[i].id > live[i - 1].id, "ids increase");
          }
          assert.ok(
            live.filter((x) => /liquidation filled/.test(x.data)).length >= 2,
          );
          const s = await getJson("/api/state?events=500&positions=0");
          const byId = new Map<number, string>(s.events.map((x: Json) => [x.id, x.text]));
          const lo = Math.max(live[0].id, s.events[0].id);
          const hi = live[live.length - 1].id;
          const inState = s.events.filter((x: Json) => x.id >= lo && x.id <= hi).map((x: Json) =>
            x.id
          );
          const inSse = live.filter((x) => x.id >= lo).map((x) => x.id);
          assert.deepEqual(inSse, inState, "the stream has exactly the buffered lines, in order");
          for (const x of live) if (byId.has(x.id)) assert.equal(x.data, byId.get(x.id));

          // Replay after Last-Event-ID: exactly the missed lines, in order, then live lines.
          const cut = s.events[s.events.length - 6].id;
          const missed = s.events.slice(-5).map((x: Json) => ({ id: x.id, data: x.text }));
          const r = await sse({ "last-event-id": String(cut) });
          assert.equal(r.res.status, 200);
          await r.until((t) => sseEvents(t).length >= missed.length, 5000, "the replay");
          assert.deepEqual(sseEvents(r.text()).slice(0, missed.length), missed);
          assert.ok(!r.text().includes(": gap"));
          // It stays open: the last step checks that live lines follow the replay (the keeper
          // may be idle now; its shutdown lines are sure to come).
          follower = { s: r, after: missed[missed.length - 1].id };
          // Same with the query parameter (for clients that cannot set headers).
          const rq = await sse({}, `?lastEventId=${cut}`);
          await rq.until((t) => sseEvents(t).length >= missed.length, 5000, "the replay (query)");
          assert.deepEqual(sseEvents(rq.text()).slice(0, missed.length), missed);
          await closeSse(rq);
          // An id this process never issued: the whole buffer, announced as a gap.
          const g = await sse({ "last-event-id": "1" });
          await g.until((t) => t.includes(": gap"), 5000, "the gap notice");
          await g.until((t) => sseEvents(t).length >= s.events.length, 5000, "the whole buffer");
          assert.ok(sseEvents(g.text())[0].id <= s.events[0].id);
          await closeSse(g);

          // The early client has been open for about 15 s by now: a heartbeat comment arrives.
          await e.until(
            (t) => /\n: heartbeat \d{4}-\d\d-\d\dT[^\n]*\n\n/.test(t),
            20_000,
            "a heartbeat",
          );
        },
      );

      // ------------------------------------------------------------------------------------------
      await t.step(
        "SSE cap: 100 streams accepted, the 101st refused, a freed slot reused",
        async () => {
          // Only the early client and the follower stay open (a failed step may have left more).
          const keep = [early, follower?.s];
          for (const s of streams.filter((s) => !keep.includes(s))) await closeSse(s);
          const base = streams.length;
          await poll(
            async () => metricValue((await scrape()).m, "keeper_sse_active") === base,
            10_000,
            "only the early client and the follower open",
          );
          const more: SseReader[] = [];
          for (let i = streams.length; i < 100; i++) more.push(await sse());
          for (const s of more) assert.equal(s.res.status, 200);
          assert.equal(streams.length, 100);
          assert.equal(metricValue((await scrape()).m, "keeper_sse_active"), 100);
          const refused = await fetch(`${k!.url}/api/events`);
          assert.equal(refused.status, 503);
          assert.equal(refused.headers.get("retry-after"), "5");
          assert.deepEqual(await refused.json(), {
            error: "too_many_sse_clients",
            limit: 100,
            active: 100,
          });
          await closeSse(more.pop()!);
          const again = await poll(
            async () => {
              const s = await openSse(k!.url);
              if (s.res.ok) return s;
              await s.close();
            },
            10_000,
            "a slot to free",
          );
          streams.push(again);
          assert.equal(again.res.status, 200);
          more.push(again);
          for (const s of more) await closeSse(s);
          await poll(
            async () => metricValue((await scrape()).m, "keeper_sse_active") === base,
            10_000,
            "streams to close",
          );
        },
      );

      // ------------------------------------------------------------------------------------------
      await t.step(
        "JSON 404 for API paths, an HTML 404 page for others; 405; CORS preflight",
        async () => {
          for (const path of ["/api/nope", "/api/state/extra"]) {
            const { res, body } = await get(path);
            assert.equal(res.status, 404, path);
            assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8", path);
            assert.deepEqual(JSON.parse(body), { error: "not_found", path });
          }
          // A page that does not exist: the site's 404 page, with its navigation.
          const page = await get("/no/such/page");
          assert.equal(page.res.status, 404);
          assert.equal(page.res.headers.get("content-type"), "text/html; charset=utf-8");
          assert.match(page.body, /href="\/vault"/);
          for (
            const [method, path] of [
              ["POST", "/api/state"],
              ["PUT", "/api/performance"],
              ["DELETE", "/metrics"],
              ["POST", "/healthz"],
              ["PATCH", "/api/events"],
            ]
          ) {
            const { res, body } = await get(path, { method });
            assert.equal(res.status, 405, `${method} ${path}`);
            assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS");
            assert.deepEqual(JSON.parse(body), {
              error: "method_not_allowed",
              method,
              allow: ["GET", "HEAD", "OPTIONS"],
            });
          }
          const pre = await get("/api/state", {
            method: "OPTIONS",
            headers: { origin: "http://localhost:5173", "access-control-request-method": "GET" },
          });
          assert.equal(pre.res.status, 204);
          assert.equal(pre.res.headers.get("access-control-allow-origin"), "http://localhost:5173");
          const cors = await get("/api/state?events=0&positions=0", {
            headers: { origin: "http://localhost:5173" },
          });
          assert.equal(
            cors.res.headers.get("access-control-allow-origin"),
            "http://localhost:5173",
          );
          const foreign = await get("/api/state?events=0&positions=0", {
            headers: { origin: "https://evil.example" },
          });
          assert.equal(foreign.res.headers.get("access-control-allow-origin"), null);
        },
      );

      // ------------------------------------------------------------------------------------------
      await t.step(
        "the secret appears in no log line, SSE event, API response or metric",
        async () => {
          // Fresh copies of every endpoint after all those cycles.
          for (
            const path of [
              "/healthz",
              "/metrics",
              "/api/state?events=500&positions=all",
              "/api/performance",
              "/nope",
            ]
          ) {
            await get(path);
          }
          // Shutdown closes the SSE streams and exits 0.
          const out = await k!.stop();
          assert.equal(out.code, 0, out.stderr.slice(-2000));
          assert.ok(await early!.ended(10_000), "shutdown closed the stream");
          const sseText = early!.text();
          await closeSse(early!);
          early = undefined;
          // Live lines followed the replay: at least the shutdown line, with a larger id.
          if (follower) {
            assert.ok(await follower.s.ended(10_000), "shutdown closed the replayed stream");
            const after = sseEvents(follower.s.text()).filter((x) => x.id > follower!.after);
            assert.ok(after.some((x) => /shutting down/.test(x.data)), "live after the replay");
            await closeSse(follower.s);
          }

          const raw = Keypair.fromSecret(secret).rawSecretKey();
          const forms = [
            secret,
            secret.toLowerCase(),
            Array.from(raw, (b) => b.toString(16).padStart(2, "0")).join(""),
            btoa(String.fromCharCode(...raw)),
          ];
          const leaks = (text: string) => forms.filter((f) => text.includes(f)).length;
          // The scan itself can fail.
          assert.equal(leaks(`x ${forms[2]} y`), 1);

          const logs = out.stderr + out.stdout;
          // Deno's own "Download …" notes (cold module cache) are not the keeper's output.
          const lines = out.stderr.split("\n").filter((l) => l !== "" && !DENO_DOWNLOAD.test(l));
          const jsonLines = lines.filter((l) => l.startsWith("{"));
          assert.deepEqual(
            lines.filter((l) => !l.startsWith("{")),
            [],
            "stderr is JSON lines only",
          );
          assert.ok(jsonLines.length >= 10, "the keeper logged its cycles");
          assert.ok(
            jsonLines.every((l) => JSON.parse(l).operator === me),
            "each line names the operator",
          );
          assert.match(logs, /liquidation filled/);
          assert.match(sseText, /liquidation filled/);
          assert.ok(seen.some((s) => s.includes("keeper_cycles_total")));
          assert.ok(seen.some((s) => s.includes('"liquidations":[{')));
          assert.ok(seen.length > 30);

          assert.equal(leaks(logs), 0, "secret in the keeper's stderr/stdout");
          assert.equal(leaks(sseText), 0, "secret in an SSE event");
          for (const s of seen) {
            assert.equal(leaks(s), 0, `secret in a response: ${s.slice(0, 80)}`);
          }
          // Nothing even tried to print it (the redactor never had to step in).
          assert.ok(
            !logs.includes("[REDACTED]") && !seen.some((s) => s.includes("[REDACTED]")),
          );
        },
      );
    } finally {
      for (const s of [...streams]) await closeSse(s);
      if (k) {
        const out = await k.stop();
        if (out.code !== 0) console.error(out.stderr.slice(-4000));
      }
      await w.close();
    }
  },
});

Deno.test("keeper_profit_usdc_total is the exact sum of booked profits (no float drift)", async () => {
  const config = loadConfig({ ...validEnv(), LENDING_POOL: contractId(3) });
  const ctx = createKeeperContext(config, {
    log: new Logger({ sink: () => {} }),
    defaultMetrics: false,
  });
  // 0.1 + 0.2 USDC: summing floats gives 0.30000000000000004.
  assert.notEqual(0.1 + 0.2, 0.3);
  for (const [i, profit] of [1_000_000n, 2_000_000n].entries()) {
    ctx.recordLiquidation({
      adapter: "lending_pool",
      pool: contractId(3),
      user: `GUSER${i}`,
      outcome: "filled",
      drew: 10n * E7,
      proceeds: 10n * E7 + profit,
      responseTimeMs: 100,
      txHash: "ab".repeat(32),
      ledger: 100 + i,
      time: new Date(),
    });
  }
  const text = await ctx.metrics.render();
  assert.match(text, /^keeper_profit_usdc_total 0\.3$/m);
  assert.equal(
    metricValue(parseMetrics(text), "keeper_liquidations_total", `pool="${contractId(3)}"`),
    2,
  );
});
