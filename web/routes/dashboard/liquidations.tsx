/**
 * `/dashboard/liquidations` — liquidation history from on-chain records: each vault
 * `return` that settled a draw, with drew, proceeds, realized profit (proceeds − drew, as
 * the vault booked it), the response time the registry recorded, and the transaction.
 * The keeper API adds the liquidated borrower and its pool where it recorded the same transaction, and
 * its own attempts that did not settle (lost races, failures) are listed separately.
 *
 * @module
 */
import type { Handlers, PageProps } from "../../state.ts";
import type { ApiLiquidation } from "../../data/api.ts";
import { formatCount, formatMs, formatTime, formatUsdc, shortAddress } from "../../data/format.ts";
import { type LiquidationRow, liquidationRows, liquidationSummary } from "../../data/derive.ts";
import { Addr, Notice, PageHead, Panel, Tile, TxLink } from "../../components/ui.tsx";

interface Data {
  rows: LiquidationRow[] | null;
  historyError: string | null;
  truncatedFrom: number | null;
  attempts: ApiLiquidation[] | null;
}

export const handler: Handlers<Data> = {
  async GET(_req, ctx) {
    const { chain, api, history } = ctx.state;
    const [perf] = await Promise.all([api.performance(), history.sync()]);
    // Names of the keepers that settled something only (the registry has no cap: never all).
    const keepers = await chain.keeperRecords(
      history.lastError ? [] : [...new Set(history.liquidations().map((l) => l.keeper))],
    );
    const names = new Map(
      (keepers.value ?? []).flatMap((k) => k.name ? [[k.address, k.name]] : []),
    );
    const rows = history.lastError
      ? null
      : liquidationRows(history.liquidations(), perf?.liquidations ?? null, names);
    const settled = new Set(rows?.map((r) => r.txHash) ?? []);
    return ctx.render({
      rows,
      historyError: history.lastError,
      truncatedFrom: history.truncated ? history.fromLedger : null,
      attempts: perf
        ? perf.liquidations.filter((l) =>
          l.outcome !== "filled" && !(l.tx_hash && settled.has(l.tx_hash))
        )
        : null,
    });
  },
};

export const meta = () => ({ title: "Liquidations · Vigil" });

export default function Liquidations({ data, state }: PageProps<Data>) {
  const sum = data.rows ? liquidationSummary(data.rows) : null;
  const explorer = state.config.explorerTx;
  return (
    <>
      <PageHead
        title="Liquidations"
        lede="Every liquidation settled with the vault, from the contracts' own events. Realized profit is what the vault booked: proceeds − drew."
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
        <Tile id="fills" label="Settled fills" value={formatCount(sum?.count)} />
        <Tile id="profit-captured" label="Profit captured" value={formatUsdc(sum?.profit)} />
        <Tile id="avg-profit" label="Avg profit / fill" value={formatUsdc(sum?.avgProfit)} />
        <Tile id="largest" label="Largest draw" value={formatUsdc(sum?.largest)} />
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
                    <th>Time</th>
                    <th>Keeper</th>
                    <th>Pool</th>
                    <th>Borrower</th>
                    <th class="num">Drew</th>
                    <th class="num">Proceeds</th>
                    <th class="num">Realized profit</th>
                    <th class="num">Response</th>
                    <th>Tx</th>
                  </tr>
                </thead>
                <tbody>
                  {data.rows.map((r) => (
                    <tr key={r.txHash + r.keeper}>
                      <td data-label="Time">{formatTime(r.time)}</td>
                      <td data-label="Keeper">
                        {r.keeperName ?? <Addr address={r.keeper} link={false} />}
                      </td>
                      <td data-label="Pool" class="mono" title={r.pool ?? undefined}>
                        {shortAddress(r.pool)}
                      </td>
                      <td data-label="Borrower" class="mono" title={r.user ?? undefined}>
                        {shortAddress(r.user)}
                      </td>
                      <td data-label="Drew" class="num">{formatUsdc(r.drew, 7)}</td>
                      <td data-label="Proceeds" class="num">{formatUsdc(r.proceeds, 7)}</td>
                      <td data-label="Realized profit" class={`num ${r.loss > 0n ? "neg" : "pos"}`}>
                        {r.loss > 0n ? `-${formatUsdc(r.loss, 7)}` : formatUsdc(r.profit, 7)}
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
      <Panel title="Keeper attempts that did not settle" id="attempts">
        {data.attempts === null
          ? <p class="muted">— (the keeper API is not reachable)</p>
          : data.attempts.length === 0
          ? <p class="empty">None recorded by this keeper.</p>
          : (
            <table class="data cards">
              <thead>
                <tr>
                  <th>Time</th>
                  <th>Outcome</th>
                  <th>Pool</th>
                  <th>Borrower</th>
                  <th class="num">Drew</th>
                  <th class="num">Returned</th>
                </tr>
              </thead>
              <tbody>
                {data.attempts.slice(0, 50).map((a, i) => (
                  <tr key={i}>
                    <td data-label="Time">{formatTime(a.time)}</td>
                    <td data-label="Outcome">{(a.outcome ?? "").replace("_", " ")}</td>
                    <td data-label="Pool" class="mono" title={a.pool ?? undefined}>
                      {shortAddress(a.pool)}
                    </td>
                    <td data-label="Borrower" class="mono">{shortAddress(a.user)}</td>
                    <td data-label="Drew" class="num">{formatUsdc(a.drew)}</td>
                    <td data-label="Returned" class="num">{formatUsdc(a.proceeds)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
      </Panel>
    </>
  );
}
