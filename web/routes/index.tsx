/**
 * `/` — what the service is and its live state: TVL, share price, realized profit, keepers,
 * the return (APY or cumulative), positions the keeper watches and the live keeper log.
 *
 * @module
 */
import type { Handlers, PageProps } from "../state.ts";
import type { VaultState } from "@vigil/contracts/clients/vault";
import type { ApiState } from "../data/api.ts";
import {
  formatCount,
  formatDuration,
  formatPrice,
  formatUsdc,
  shortAddress,
  vaultSharePrice,
} from "../data/format.ts";
import { describeReturn, vaultReturn } from "../data/returns.ts";
import { priceSeries } from "../data/derive.ts";
import { Notice, Panel, Tile } from "../components/ui.tsx";
import LiveLog from "../islands/LiveLog.tsx";

interface Data {
  state: VaultState | null;
  /** Seconds over which a flash's profit enters the share price. */
  unlockSecs: bigint | null;
  chainError: string | null;
  keepers: number | null;
  liquidations: number | null;
  ret: ReturnType<typeof describeReturn>;
  api: ApiState | null;
}

export const handler: Handlers<Data> = {
  async GET(_req, ctx) {
    const { chain, api, history, now } = ctx.state;
    const [st, vc, t, keepers, apiState, perf] = await Promise.all([
      chain.vaultState(),
      chain.vaultConfig(),
      chain.chainTime(),
      chain.keeperCount(),
      api.state(40),
      api.performance(),
      history.sync(),
    ]);
    const states = st.value && !history.lastError
      ? history.statePoints(
        st.value,
        t.value !== null ? t.value * 1000 : now(),
        vc.value?.profit_unlock_secs,
      )
      : null;
    const series = priceSeries(states, perf);
    return ctx.render({
      state: st.value,
      unlockSecs: vc.value?.profit_unlock_secs ?? null,
      chainError: st.error,
      keepers: keepers.value,
      liquidations: history.lastError ? null : history.liquidations().length,
      ret: describeReturn(vaultReturn(series.points)),
      api: apiState,
    });
  },
};

export const meta = () => ({
  title: "Vigil · pooled liquidations on Stellar",
  description: "Deposit USDC into a shared vault that keepers use to fill liquidation auctions.",
});

export default function Home({ data, state }: PageProps<Data>) {
  const s = data.state;
  const underwater =
    data.api?.positions.filter((p) => p.health_factor !== null && p.health_factor < 1.2) ?? [];
  return (
    <>
      <section class="hero">
        <h1>Pooled liquidation capital for Stellar lending markets</h1>
        <p>
          Depositors put USDC into one vault. Independent keepers stake USDC in a registry and
          borrow the vault's USDC as a flash loan to fill liquidation auctions: the fill, the swap
          and the repayment with profit happen in one transaction, or nothing happens. Profit raises
          the share price — no reward tokens, no emissions, no coordinator.
        </p>
        <div class="cta">
          <a class="button" href="/vault">Deposit USDC</a>
          <a class="button secondary" href="/dashboard">Open the dashboard</a>
        </div>
      </section>

      {data.chainError && (
        <Notice kind="error" id="chain-error">
          The chain could not be read ({data.chainError}); its figures show “—”.
        </Notice>
      )}
      <div class="tiles six" id="live-state">
        <Tile id="tvl" label="TVL" value={formatUsdc(s?.total_usdc)} sub="USDC in the vault" />
        <Tile
          id="share-price"
          label="Share price"
          value={formatPrice(vaultSharePrice(s))}
          sub={s && s.locked_profit > 0n
            ? <>{formatUsdc(s.locked_profit)} of profit unlocking</>
            : "USDC per share"}
        />
        <Tile
          id="realized-profit"
          label="Realized profit"
          value={formatUsdc(s?.total_profit)}
          sub="on chain (total_profit)"
        />
        <Tile id="return" label={data.ret.label} value={data.ret.value} sub={data.ret.note} />
        <Tile
          id="keepers"
          label="Keepers"
          value={formatCount(data.keepers)}
          sub="registered"
        />
        <Tile
          id="liquidations"
          label="Liquidations"
          value={formatCount(data.liquidations)}
          sub="settled on chain"
        />
      </div>

      <h2>How it works</h2>
      <ol class="steps">
        <li>
          <strong>Deposit.</strong>{" "}
          USDC goes into the vault for LP shares at the share price: the vault's USDC, less recent
          profit still unlocking, ÷ total_shares. Shares unlock after the withdraw cooldown.
        </li>
        <li>
          <strong>Keepers fill auctions.</strong>{" "}
          Registered keepers borrow vault capital as a flash loan, fill lending-pool liquidation
          auctions and swap the collateral back to USDC — all in one transaction that repays the
          vault or reverts.
        </li>
        <li>
          <strong>Profit raises the price.</strong>{" "}
          Proceeds return to the vault in the same transaction; profit = returned − lent is booked
          on chain and enters the share price gradually, over{" "}
          {data.unlockSecs === null ? "the unlock time" : formatDuration(data.unlockSecs)}, so a
          deposit made just before a fill cannot take it from the depositors who were there. Capital
          is never out between transactions, so there is nothing to steal or slash.
        </li>
      </ol>

      <div class="two-col" style={{ marginTop: "24px" }}>
        <Panel>
          <LiveLog
            apiUrl={state.config.apiUrl}
            reachable={data.api !== null}
            clock={state.chain.clock.view()}
            initial={(data.api?.events ?? []).map((e) => ({
              id: e.id,
              ts: e.ts,
              level: e.level,
              text: e.text,
              plain: e.plain,
            }))}
          />
        </Panel>
        <Panel title="Positions at risk" id="monitor">
          {data.api === null
            ? <p class="muted">— (the keeper API is not reachable)</p>
            : underwater.length === 0
            ? (
              <p class="muted">
                No watched position has a health factor below 1.2
                {data.api.positionsSummary.tracked !== null &&
                  ` (${formatCount(data.api.positionsSummary.tracked)} tracked)`}.
              </p>
            )
            : (
              <table class="data">
                <thead>
                  <tr>
                    <th>Borrower</th>
                    <th>Pool</th>
                    <th class="num">Health factor</th>
                    <th>State</th>
                  </tr>
                </thead>
                <tbody>
                  {underwater.slice(0, 10).map((p) => (
                    <tr key={`${p.pool}:${p.user}`}>
                      <td class="mono" title={p.user}>{shortAddress(p.user)}</td>
                      <td class="mono" title={p.pool ?? undefined}>{shortAddress(p.pool)}</td>
                      <td class="num">{p.health_factor!.toFixed(4)}</td>
                      <td class={p.health_factor! < 1 ? "neg" : ""}>
                        {p.health_factor! < 1 ? "liquidatable" : "at risk"}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
        </Panel>
      </div>
    </>
  );
}
