/**
 * `/dashboard/liquidations` — liquidation history from on-chain records: each vault `flash`
 * (lent, repaid, realized profit = repaid − lent, as the vault booked it, in one transaction),
 * the response time the registry recorded, and the transaction.
 * The keeper API adds the liquidated borrower and its pool where it recorded the same transaction, and
 * its own attempts that did not settle (lost races, failures) are listed separately.
 *
 * @module
 */
import type { Handlers, PageProps } from "../../state.ts";
import type { ApiLiquidation } from "../../data/api.ts";
import { formatCount, formatMs, formatTime, formatUsdc, shortAddress } from "../../data/format.ts";
import {
  type AttemptSummary,
  attemptSummary,
  type LiquidationRow,
  liquidationRows,
  liquidationSummary,
  outcomeText,
} from "../../data/derive.ts";
import { chainTimeOfLedger, chainTimeOfWall, type ClockView } from "../../data/clock.ts";
import { Addr, Notice, PageHead, Panel, Tile, TxLink } from "../../components/ui.tsx";
import { AttemptCounts } from "../../components/attempts.tsx";

interface Data {
  rows: LiquidationRow[] | null;
  historyError: string | null;
  truncatedFrom: number | null;
  /** The serving keeper's attempts that did not settle, with their chain time. */
  attempts: (ApiLiquidation & { chainTime: number | null })[] | null;
  /** The serving keeper's attempts by outcome, and whose view it is. */
  self: { name: string | null; address: string | null; summary: AttemptSummary } | null;
}

/** A keeper record's time on the chain's clock: its ledger when known, else its wall time mapped. */
export function attemptChainTime(a: ApiLiquidation, clock: ClockView, nowWall: number) {
  const byLedger = a.ledger !== null ? chainTimeOfLedger(clock, a.ledger) : null;
  if (byLedger !== null) return byLedger;
  const wall = a.time ? Date.parse(a.time) : NaN;
  return Number.isNaN(wall) ? null : chainTimeOfWall(clock, wall, nowWall);
}

export const handler: Handlers<Data> = {
  async GET(_req, ctx) {
    const { chain, api, history, now } = ctx.state;
    const [policy, apiState] = await Promise.all([
      chain.flashPolicy(),
      api.state(0),
      chain.chainTime(),
    ]);
    // The pools' own fill events name every keeper's borrower (not only the serving keeper's).
    if (policy.value) history.watchPools(policy.value.pools);
    const [perf] = await Promise.all([api.performance(), history.sync()]);
    // Names of the keepers that settled something only (the registry has no cap: never all).
    const keepers = await chain.keeperRecords(
      history.lastError ? [] : [...new Set(history.liquidations().map((l) => l.keeper))],
    );
    const names = new Map(
      (keepers.value ?? []).flatMap((k) => k.name ? [[k.address, k.name]] : []),
    );
    const rows = history.lastError ? null : liquidationRows(
      history.liquidations(),
      perf?.liquidations ?? null,
      names,
      (tx) => history.poolFill(tx),
    );
    const settled = new Set(rows?.map((r) => r.txHash) ?? []);
    const clock = chain.clock.view();
    const wallNow = now();
    return ctx.render({
      rows,
      historyError: history.lastError,
      truncatedFrom: history.truncated ? history.fromLedger : null,
      attempts: perf
        ? perf.liquidations.filter((l) =>
          l.outcome !== "filled" && !(l.tx_hash && settled.has(l.tx_hash))
        ).map((l) => ({ ...l, chainTime: attemptChainTime(l, clock, wallNow) }))
        : null,
      self: perf
        ? {
          name: apiState?.keeper?.name ?? perf.stats?.name ?? null,
          address: apiState?.keeper?.address ?? perf.stats?.address ?? null,
          summary: attemptSummary(perf.liquidations),
        }
        : null,
    });
  },
};

export const meta = () => ({ title: "Liquidations · Vigil" });

/** "keeper-1, the keeper serving this page" — whose view a keeper-API figure is. */
function whose(self: Data["self"]) {
  return (
    <>
      <strong>{self?.name ?? shortAddress(self?.address)}</strong>, the keeper serving this page
    </>
  );
}

export default function Liquidations({ data, state }: PageProps<Data>) {
  const sum = data.rows ? liquidationSummary(data.rows) : null;
  const explorer = state.config.explorerTx;
  const self = data.self;
  return (
    <>
      <PageHead
        title="Liquidations"
        lede="Every liquidation settled with the vault, from the contracts' own events: the vault lends USDC as a flash loan and is repaid with the profit in the same transaction. The borrower comes from the lending pool's own fill event of that transaction."
      />
      {data.historyError && (
        <Notice kind="error" id="chain-error">
          The chain's event history could not be read ({data.historyError}); figures show “—”.
        </Notice>
      )}
      {data.truncatedFrom !== null && (
        <Notice kind="info">
          The RPC node keeps events from ledger {data.truncatedFrom}{" "}
          on; older liquidations are not listed (the vault's total profit still counts them).
        </Notice>
      )}
      <div class="tiles">
        <Tile id="fills" label="Settled fills" value={formatCount(sum?.count)} sub="on chain" />
        <Tile id="profit-captured" label="Profit captured" value={formatUsdc(sum?.profit)} />
        <Tile id="avg-profit" label="Avg profit / fill" value={formatUsdc(sum?.avgProfit)} />
        <Tile id="largest" label="Largest flash" value={formatUsdc(sum?.largest)} />
      </div>
      <Panel title="History" id="liquidations-table">
        {data.rows === null
          ? <p class="muted">—</p>
          : data.rows.length === 0
          ? <p class="empty">No liquidation has settled with the vault yet.</p>
          : (
            <div class="table-wrap">
              <table class="data cards">
                <thead>
                  <tr>
                    <th>Time (chain)</th>
                    <th>Keeper</th>
                    <th>Pool</th>
                    <th>Borrower</th>
                    <th class="num">Flash loan</th>
                    <th class="num">Repaid</th>
                    <th class="num">Profit</th>
                    <th class="num">Response</th>
                    <th>Tx</th>
                  </tr>
                </thead>
                <tbody>
                  {data.rows.map((r) => (
                    <tr key={r.txHash + r.keeper}>
                      <td data-label="Time (chain)" class="nowrap">{formatTime(r.time)}</td>
                      <td data-label="Keeper">
                        {r.keeperName ?? <Addr address={r.keeper} link={false} />}
                      </td>
                      <td data-label="Pool" class="mono" title={r.pool ?? undefined}>
                        {shortAddress(r.pool)}
                      </td>
                      <td data-label="Borrower" class="mono borrower" title={r.user ?? undefined}>
                        {shortAddress(r.user)}
                      </td>
                      <td data-label="Flash loan" class="num">{formatUsdc(r.drew)}</td>
                      <td data-label="Repaid" class="num">{formatUsdc(r.proceeds)}</td>
                      <td data-label="Profit" class={`num ${r.loss > 0n ? "neg" : "pos"}`}>
                        {r.loss > 0n ? `-${formatUsdc(r.loss)}` : formatUsdc(r.profit)}
                      </td>
                      <td data-label="Response" class="num">{formatMs(r.responseTimeMs)}</td>
                      <td data-label="Tx">
                        <TxLink hash={r.txHash} explorer={explorer} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
      </Panel>
      <Panel title="Attempts that did not settle" id="attempts">
        {data.attempts === null || self === null
          ? <p class="muted">— (the keeper API is not reachable)</p>
          : (
            <>
              <p class="small muted" id="attempts-whose">
                As seen by{" "}
                {whose(self)}: other keepers' attempts that did not settle leave nothing on chain (a
                lost race is refused at simulation, before anything is lent).{" "}
                <AttemptCounts summary={self.summary} />
              </p>
              {data.attempts.length === 0
                ? <p class="empty">None recorded by this keeper.</p>
                : (
                  <table class="data cards">
                    <thead>
                      <tr>
                        <th>Time (chain)</th>
                        <th>Outcome</th>
                        <th>Pool</th>
                        <th>Borrower</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.attempts.slice(0, 50).map((a, i) => (
                        <tr key={i}>
                          <td data-label="Time (chain)" class="nowrap">
                            {formatTime(a.chainTime, true)}
                          </td>
                          <td data-label="Outcome">{outcomeText(a.outcome)}</td>
                          <td data-label="Pool" class="mono" title={a.pool ?? undefined}>
                            {shortAddress(a.pool)}
                          </td>
                          <td data-label="Borrower" class="mono">{shortAddress(a.user)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
            </>
          )}
      </Panel>
    </>
  );
}
