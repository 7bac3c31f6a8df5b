/**
 * `/dashboard/[address]` — one depositor's position (vault `get_depositor` and `balance`),
 * its value over time (its shares after every vault event × the share price then, rebuilt
 * from on-chain events) and its deposit / withdrawal history.
 *
 * @module
 */
import { StrKey } from "@stellar/stellar-sdk";
import type { Handlers, PageProps } from "../../state.ts";
import type { DepositorPosition } from "../../data/contract_reads.ts";
import type { DepositorTx } from "../../data/history.ts";
import {
  DASH,
  formatAmount,
  formatDuration,
  formatPercent,
  formatTime,
  formatUsdc,
  ratio,
} from "../../data/format.ts";
import { Notice, PageHead, Panel, Tile, TxLink } from "../../components/ui.tsx";
import { type ChartPoint, LineChart } from "../../components/Chart.tsx";

interface Data {
  address: string;
  valid: boolean;
  pos: DepositorPosition | null;
  error: string | null;
  chainNow: number | null;
  history: DepositorTx[] | null;
  valueSeries: ChartPoint[];
}

export const handler: Handlers<Data> = {
  async GET(_req, ctx) {
    const address = ctx.params.address;
    const valid = StrKey.isValidEd25519PublicKey(address) || StrKey.isValidContract(address);
    if (!valid) {
      return ctx.render({
        address,
        valid,
        pos: null,
        error: null,
        chainNow: null,
        history: null,
        valueSeries: [],
      }, { status: 404 });
    }
    const { chain, history, now } = ctx.state;
    const vc = await chain.vaultConfig();
    const [pos, st, t] = await Promise.all([
      chain.depositor(address, vc.value?.withdraw_cooldown ?? null),
      chain.vaultState(),
      chain.chainTime(),
      history.sync(),
    ]);
    let valueSeries: ChartPoint[] = [];
    const histOk = !history.lastError;
    if (histOk && st.value && pos.value?.shares !== null && pos.value) {
      const points = history.statePoints(
        st.value,
        t.value !== null ? t.value * 1000 : now(),
        vc.value?.profit_unlock_secs,
      );
      const shares = history.depositorShares(address, pos.value.shares ?? 0n, points);
      // What the shares were worth: unlocked capital only (profit still locking is not paid out).
      valueSeries = points.map((p, i) => ({
        t: p.time,
        v: Number((shares[i] * (p.total_usdc - p.locked_profit)) / p.total_shares) / 1e7,
      }));
      // Start the line at the first deposit (before it the value is not "0", there was none).
      const first = valueSeries.findIndex((p) => p.v > 0);
      valueSeries = first === -1 ? [] : valueSeries.slice(first);
    }
    return ctx.render({
      address,
      valid,
      pos: pos.value,
      error: pos.error ?? st.error,
      chainNow: t.value,
      history: histOk ? history.depositorHistory(address) : null,
      valueSeries,
    });
  },
};

export const meta = ({ data }: PageProps<Data>) => ({
  title: `${
    data.valid ? `${data.address.slice(0, 4)}…${data.address.slice(-4)}` : "Unknown"
  } · Depositor · Vigil`,
});

export default function DepositorPage({ data, state }: PageProps<Data>) {
  if (!data.valid) {
    return (
      <>
        <PageHead title="Depositor" />
        <Notice kind="error" id="address-error">
          “{data.address}” is not a Stellar address.{" "}
          <a href="/dashboard/depositor">Look up another</a>
        </Notice>
      </>
    );
  }
  const p = data.pos;
  // Profit so far = current value + USDC withdrawn − USDC deposited (all from the record).
  const pnl = p && p.value !== null && p.deposited !== null && p.withdrawn !== null
    ? p.value + p.withdrawn - p.deposited
    : null;
  const unlockIn = p?.unlock_at != null && data.chainNow !== null
    ? Number(p.unlock_at) - data.chainNow
    : null;
  return (
    <>
      <PageHead
        title="Depositor"
        lede={<span class="mono" style={{ overflowWrap: "anywhere" }}>{data.address}</span>}
      />
      {data.error && (
        <Notice kind="error" id="chain-error">
          The position could not be read from the chain ({data.error}); its figures show “—”.
        </Notice>
      )}
      {p && !p.exists && (
        <Notice kind="info" id="no-position">
          This address has never deposited into the vault.
        </Notice>
      )}
      <div class="tiles">
        <Tile id="dep-shares" label="Shares" value={formatAmount(p?.shares, { decimals: 7 })} />
        <Tile
          id="dep-value"
          label="Current value"
          value={formatUsdc(p?.value)}
          sub="at today's share price"
        />
        <Tile
          id="dep-net"
          label="Net deposited"
          value={formatUsdc(
            p && p.deposited !== null && p.withdrawn !== null ? p.deposited - p.withdrawn : null,
          )}
          sub={<>in {formatUsdc(p?.deposited)} · out {formatUsdc(p?.withdrawn)}</>}
        />
        <Tile
          id="dep-pnl"
          label="Profit to date"
          value={pnl === null ? DASH : `${pnl > 0n ? "+" : ""}${formatUsdc(pnl)}`}
          sub={pnl !== null && p?.deposited
            ? formatPercent(ratio(pnl, p.deposited), { signed: true })
            : undefined}
        />
        <Tile
          id="dep-cooldown"
          label="Cooldown"
          value={unlockIn === null ? DASH : unlockIn > 0 ? formatDuration(unlockIn) : "ended"}
          title="In chain time (see the line at the top when it runs faster than real time)"
          sub={p?.locked_shares && unlockIn !== null && unlockIn > 0
            ? `${formatAmount(p.locked_shares, { decimals: 7 })} shares locked`
            : undefined}
        />
      </div>
      <Panel title="Value over time" id="value-chart">
        <LineChart
          points={data.valueSeries}
          format={(v) => v.toFixed(2)}
          label="Position value (USDC) over time"
          emptyText={data.history === null
            ? "— (the chain's event history could not be read)"
            : "Not enough history for this address to draw its value over time."}
        />
      </Panel>
      <Panel title="Deposits and withdrawals" id="depositor-history">
        {data.history === null
          ? <p class="muted">—</p>
          : data.history.length === 0
          ? <p class="empty">No deposit or withdrawal on record.</p>
          : (
            <table class="data cards">
              <thead>
                <tr>
                  <th>Time (chain)</th>
                  <th>Type</th>
                  <th class="num">USDC</th>
                  <th class="num">Shares</th>
                  <th>Tx</th>
                </tr>
              </thead>
              <tbody>
                {data.history.map((h) => (
                  <tr key={`${h.txHash}${h.seq}`} data-kind={h.kind}>
                    <td data-label="Time (chain)" class="nowrap">{formatTime(h.time)}</td>
                    <td data-label="Type">{h.kind === "deposit" ? "Deposit" : "Withdrawal"}</td>
                    <td data-label="USDC" class={`num ${h.kind === "deposit" ? "" : "neg"}`}>
                      {h.kind === "deposit" ? "+" : "-"}
                      {formatUsdc(h.amount)}
                    </td>
                    <td data-label="Shares" class="num">
                      {formatAmount(h.shares, { decimals: 7 })}
                    </td>
                    <td data-label="Tx">
                      <TxLink hash={h.txHash} explorer={state.config.explorerTx} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
      </Panel>
    </>
  );
}
