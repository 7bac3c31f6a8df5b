/**
 * `/dashboard` — overview tiles, the profit still unlocking and any queued admin change, the
 * share-price chart over time (unlocked capital per share), top keepers and recent
 * liquidations. Everything from chain reads and on-chain events; the keeper API only fills
 * gaps (its share-price series when the chain history has fewer than two points).
 *
 * Top keepers: the registry has no cap (issue 20), so the page does not read every record; the
 * candidates are the first registry page and every keeper with an `execution` event in the
 * retained history (a keeper that never executed has no profit to rank).
 *
 * @module
 */
import type { Handlers, PageProps } from "../../state.ts";
import type { FlashPolicy, VaultConfig, VaultState } from "@vigil/contracts/clients/vault";
import { type KeeperRecord, KEEPERS_PAGE, type Pending } from "../../data/contract_reads.ts";
import {
  formatCount,
  formatMs,
  formatPrice,
  formatTime,
  formatUsdc,
  vaultSharePrice,
} from "../../data/format.ts";
import { describeReturn, type PricePoint, vaultReturn } from "../../data/returns.ts";
import {
  type LiquidationRow,
  liquidationRows,
  priceSeries,
  type SeriesSource,
  withinDays,
} from "../../data/derive.ts";
import { Addr, Notice, PageHead, Panel, Tile, TxLink } from "../../components/ui.tsx";
import { LineChart } from "../../components/Chart.tsx";
import { PendingChanges, ProfitUnlockNotice } from "../../components/vault_status.tsx";

const RANGES: Record<string, number | null> = { "7d": 7, "30d": 30, "90d": 90, all: null };

interface Data {
  state: VaultState | null;
  chainError: string | null;
  /** Top-keeper candidates (see the module doc). */
  keepers: KeeperRecord[] | null;
  /** Registered keepers (`get_keeper_count`). */
  keeperCount: number | null;
  config: VaultConfig | null;
  policy: FlashPolicy | null;
  pendingPolicy: Pending<FlashPolicy> | null;
  pendingConfig: Pending<VaultConfig> | null;
  pendingError: string | null;
  chainNow: number | null;
  series: PricePoint[];
  seriesSource: SeriesSource;
  ret: ReturnType<typeof describeReturn>;
  range: string;
  depositors: number | null;
  liquidations: LiquidationRow[] | null;
  apiUp: boolean;
}

/** Depositors holding shares, counted from on-chain events (null if history is partial). */
function depositorsFromEvents(
  events: readonly { contract: string; name: string; subject: string | null; data: unknown[] }[],
) {
  const shares = new Map<string, bigint>();
  for (const e of events) {
    if (e.contract !== "vault" || !e.subject) continue;
    const d = e.data.map((x) => (typeof x === "bigint" ? x : 0n));
    if (e.name === "deposit") shares.set(e.subject, (shares.get(e.subject) ?? 0n) + d[1]);
    if (e.name === "withdraw") shares.set(e.subject, (shares.get(e.subject) ?? 0n) - d[0]);
  }
  return [...shares.values()].filter((s) => s > 0n).length;
}

export const handler: Handlers<Data> = {
  async GET(_req, ctx) {
    const { chain, api, history, now } = ctx.state;
    const range = ctx.url.searchParams.get("range") ?? "30d";
    const [st, vc, t, fp, pp, pc, first, perf] = await Promise.all([
      chain.vaultState(),
      chain.vaultConfig(),
      chain.chainTime(),
      chain.flashPolicy(),
      chain.pendingFlashPolicy(),
      chain.pendingConfig(),
      chain.keepers(KEEPERS_PAGE),
      api.performance(),
    ]);
    if (fp.value) history.watchPools(fp.value.pools);
    await history.sync();
    const histOk = !history.lastError;
    let keepers: KeeperRecord[] | null = first.value;
    if (keepers && histOk) {
      const known = new Set(keepers.map((k) => k.address));
      const more = await chain.keeperRecords(
        history.executingKeepers().filter((a) => !known.has(a)),
      );
      keepers = more.value ? [...keepers, ...more.value] : keepers;
    }
    const states = st.value && histOk
      ? history.statePoints(
        st.value,
        t.value !== null ? t.value * 1000 : now(),
        vc.value?.profit_unlock_secs,
      )
      : null;
    const series = priceSeries(states, perf);
    const names = new Map(
      (keepers ?? []).flatMap((k) => k.name ? [[k.address, k.name]] : []),
    );
    return ctx.render({
      state: st.value,
      chainError: st.error ?? first.error,
      keepers,
      keeperCount: first.total,
      config: vc.value,
      policy: fp.value,
      pendingPolicy: pp.value,
      pendingConfig: pc.value,
      pendingError: pp.error ?? pc.error,
      chainNow: t.value,
      series: series.points,
      seriesSource: series.source,
      ret: describeReturn(vaultReturn(series.points)),
      range: range in RANGES ? range : "30d",
      depositors: histOk && !history.truncated ? depositorsFromEvents(history.all()) : null,
      liquidations: histOk
        ? liquidationRows(
          history.liquidations(),
          perf?.liquidations ?? null,
          names,
          (tx) => history.poolFill(tx),
        )
        : null,
      apiUp: perf !== null,
    });
  },
};

export const meta = () => ({ title: "Dashboard · Vigil" });

export default function Dashboard({ data, state }: PageProps<Data>) {
  const s = data.state;
  // The chart's "now" is the chain's: every time on the pages is a ledger time.
  const now = Math.max(
    data.chainNow !== null ? data.chainNow * 1000 : 0,
    data.series.at(-1)?.t ?? 0,
  );
  const shown = withinDays(data.series, RANGES[data.range] ?? null, now);
  const top = [...(data.keepers ?? [])].sort((a, b) =>
    Number((b.total_profit ?? -1n) - (a.total_profit ?? -1n))
  ).slice(0, 5);
  return (
    <>
      <PageHead
        title="Dashboard"
        lede="The vault's books, its share price over time, keepers and liquidations."
      />
      {data.chainError && (
        <Notice kind="error" id="chain-error">
          The chain could not be read ({data.chainError}); its figures show “—”.
        </Notice>
      )}
      <div class="tiles six">
        <Tile id="tvl" label="TVL" value={formatUsdc(s?.total_usdc)} />
        <Tile
          id="share-price"
          label="Share price"
          value={formatPrice(vaultSharePrice(s))}
          sub={s && s.locked_profit > 0n
            ? <>{formatUsdc(s.locked_profit)} unlocking</>
            : "unlocked USDC per share"}
        />
        <Tile id="return" label={data.ret.label} value={data.ret.value} sub={data.ret.note} />
        <Tile
          id="realized-profit"
          label="Realized profit"
          value={formatUsdc(s?.total_profit)}
          sub="on chain"
        />
        <Tile
          id="keepers"
          label="Keepers"
          value={formatCount(data.keeperCount)}
          sub="registered"
        />
        <Tile
          id="depositors"
          label="Depositors"
          value={formatCount(data.depositors)}
          sub="holding shares"
        />
      </div>

      <ProfitUnlockNotice state={s} chainNow={data.chainNow} rate={state.chain.clock.view().rate} />
      <Panel
        title="Share price"
        id="share-price-chart"
        class="chart-panel"
        extra={
          <nav class="tabs" style={{ margin: 0, width: "auto" }} aria-label="Range">
            {Object.keys(RANGES).map((r) => (
              <a
                key={r}
                class={`button small ${r === data.range ? "" : "secondary"}`}
                href={`/dashboard?range=${r}`}
                aria-current={r === data.range ? "true" : undefined}
              >
                {r === "all" ? "All" : r.toUpperCase()}
              </a>
            ))}
          </nav>
        }
      >
        <LineChart
          points={shown.map((p) => ({ t: p.t, v: Number(p.price) / 1e7 }))}
          format={(v) => v.toFixed(v >= 100 ? 2 : 5)}
          label="Share price (USDC per share) over time"
          emptyText="The share price needs at least two points (deposits or settled liquidations) before a chart can be drawn."
        />
        <p class="hint">
          {data.seriesSource === "chain"
            ? "Rebuilt from the vault's on-chain events: one point per deposit, withdrawal or flash; a flash's profit raises the price gradually as it unlocks."
            : data.seriesSource === "keeper"
            ? "From the keeper API's recorded series (the chain history had fewer than two points)."
            : "No share-price history yet."}
        </p>
      </Panel>

      <div style={{ marginTop: "16px" }}>
        <PendingChanges
          policy={data.policy}
          pendingPolicy={data.pendingPolicy}
          config={data.config}
          pendingConfig={data.pendingConfig}
          chainNow={data.chainNow}
          rate={state.chain.clock.view().rate}
          error={data.pendingError}
        />
      </div>

      <div class="two-col even" style={{ marginTop: "16px" }}>
        <Panel title="Top keepers" extra={<a href="/dashboard/keepers">All keepers →</a>}>
          {data.keepers === null
            ? <p class="muted">—</p>
            : top.length === 0
            ? <p class="empty">No keeper is registered.</p>
            : (
              <table class="data cards">
                <thead>
                  <tr>
                    <th>Keeper</th>
                    <th class="num">Counted fills</th>
                    <th class="num">Profit</th>
                    <th class="num">Avg response</th>
                  </tr>
                </thead>
                <tbody>
                  {top.map((k) => (
                    <tr key={k.address}>
                      <td data-label="Keeper">
                        {k.name ?? "—"} <Addr address={k.address} link={false} />
                      </td>
                      <td data-label="Counted fills" class="num">
                        {formatCount(k.successful_fills)}
                      </td>
                      <td data-label="Profit" class="num">{formatUsdc(k.total_profit)}</td>
                      <td data-label="Avg response" class="num">
                        {formatMs(k.avg_response_time_ms)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
        </Panel>
        <Panel title="Recent liquidations" extra={<a href="/dashboard/liquidations">History →</a>}>
          {data.liquidations === null
            ? <p class="muted">— (the chain's event history could not be read)</p>
            : data.liquidations.length === 0
            ? <p class="empty">No liquidation has settled yet.</p>
            : (
              <table class="data cards">
                <thead>
                  <tr>
                    <th>Time (chain)</th>
                    <th class="num">Flash loan</th>
                    <th class="num">Profit</th>
                    <th>Tx</th>
                  </tr>
                </thead>
                <tbody>
                  {data.liquidations.slice(0, 5).map((l) => (
                    <tr key={l.txHash}>
                      <td data-label="Time (chain)" class="nowrap">{formatTime(l.time)}</td>
                      <td data-label="Flash loan" class="num">{formatUsdc(l.drew)}</td>
                      <td data-label="Profit" class="num pos">{formatUsdc(l.profit)}</td>
                      <td data-label="Tx">
                        <TxLink hash={l.txHash} explorer={state.config.explorerTx} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
        </Panel>
      </div>
      {!data.apiUp && (
        <p class="hint" id="api-down">
          The keeper API is not reachable; every figure above comes from the chain.
        </p>
      )}
    </>
  );
}
