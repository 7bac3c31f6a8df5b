/**
 * The vault page's interactive part: the vault's figures (server-rendered, refreshed after
 * every write on the page), the connected wallet's position (shares, value, withdrawable shares
 * and the cooldown remaining, in chain time) and the deposit / withdraw forms, which say before
 * the click why they cannot be sent (`web/data/forms.ts`). Writes are built, simulated and
 * assembled here in the browser and signed by the connected wallet.
 *
 * @module
 */
import { useEffect, useState } from "preact/hooks";
import type { PublicConfig } from "../data/config.ts";
import type { VaultConfig, VaultState } from "@vigil/contracts/clients/vault";
import type { DepositorPosition } from "../data/contract_reads.ts";
import {
  DASH,
  formatAmount,
  formatPercent,
  formatPrice,
  formatTime,
  formatUsdc,
  formatUsdcExact,
  parseAmount,
  ratio,
  vaultSharePrice,
} from "../data/format.ts";
import { signerFor, wallet } from "../wallet/wallet.ts";
import { useWrite, writesConfirmed, WriteStatus } from "../components/write.tsx";
import { chainAt, type ClockView } from "../data/clock.ts";
import {
  chainDuration,
  depositBlock,
  depositMax,
  withdrawBlock,
  withdrawMax,
} from "../data/forms.ts";
import { contractWrite, loadChainReader } from "../data/lazy_sdk.ts";
import { Bar, Tile } from "../components/ui.tsx";

/** Props rendered by the server. */
export interface VaultPanelProps {
  config: PublicConfig;
  state: VaultState | null;
  vaultConfig: VaultConfig | null;
  /** USDC token contract (from the registry config), for balances and error naming. */
  usdc: string | null;
  /** Chain time (Unix seconds) at render, or null. */
  chainNow: number | null;
  /** The server's chain clock at render (its rate turns chain time into real time). */
  clock?: ClockView | null;
}

interface Position {
  pos: DepositorPosition | null;
  usdcBalance: bigint | null;
  error: string | null;
  loading: boolean;
}

/** Shares that can be withdrawn now (locked shares stay locked until unlock_at). */
function withdrawable(pos: DepositorPosition | null, now: number | null) {
  if (!pos || pos.shares === null) return null;
  if (pos.unlock_at === null || now === null) return pos.shares;
  if (BigInt(Math.floor(now)) >= pos.unlock_at) return pos.shares;
  const locked = pos.locked_shares;
  return locked === null ? 0n : pos.shares - locked > 0n ? pos.shares - locked : 0n;
}

/** The vault figures and the deposit/withdraw island. */
export default function VaultPanel(props: VaultPanelProps) {
  const { config } = props;
  const reader = () => loadChainReader(config);
  const [state, setState] = useState<VaultState | null>(props.state);
  const [vcfg] = useState<VaultConfig | null>(props.vaultConfig);
  const [position, setPosition] = useState<Position>({
    pos: null,
    usdcBalance: null,
    error: null,
    loading: false,
  });
  // Chain clock: the latest ledger read (server's, then this page's own) and the measured rate.
  const [clock, setClock] = useState<ClockView | null>(
    props.clock?.anchor ? props.clock : props.chainNow === null ? null : {
      anchor: { wall: Date.now(), chain: props.chainNow, seq: 0 },
      rate: null,
      secsPerLedger: null,
    },
  );
  const [maxNote, setMaxNote] = useState<string | null>(null);
  const [, setTick] = useState(0);
  const [tab, setTab] = useState<"deposit" | "withdraw">("deposit");
  const [amount, setAmount] = useState("");
  const { state: ws, run, busy } = useWrite({ usdc: props.usdc });
  const w = wallet.value;

  // Buttons go by the last ledger read (the chain decides); only the countdown's text runs on
  // between reads, at the measured rate, and the cooldown is re-read while it runs.
  const lastRead = clock?.anchor?.chain ?? null;
  const chainMs = clock ? chainAt(clock, Date.now()) : null;
  const now = chainMs === null ? null : chainMs / 1000;
  const rate = clock?.rate ?? null;

  const refresh = async (address: string | null) => {
    if (!address) {
      // Nothing wallet-specific to show; the server-rendered figures are current.
      setPosition({ pos: null, usdcBalance: null, error: null, loading: false });
      return;
    }
    setPosition((p) => ({ ...p, loading: true }));
    const r = await reader();
    const cooldown = vcfg?.withdraw_cooldown ?? null;
    const [st, t, pos, bal] = await Promise.all([
      r.vaultState(),
      r.chainTime(),
      r.depositor(address, cooldown),
      props.usdc
        ? r.tokenBalance(props.usdc, address)
        : Promise.resolve({ value: null, error: null }),
    ]);
    if (st.value) setState(st.value);
    if (t.value !== null) {
      const own = r.clock.view();
      setClock((c) => ({
        anchor: own.anchor,
        rate: own.rate ?? c?.rate ?? null,
        secsPerLedger: own.secsPerLedger ?? c?.secsPerLedger ?? null,
      }));
    }
    setPosition({
      pos: pos.value,
      usdcBalance: bal.value,
      error: pos.error,
      loading: false,
    });
  };

  // Again after every write confirmed on the page (a keeper's stake moves USDC too).
  const writes = writesConfirmed.value;
  useEffect(() => {
    refresh(w?.address ?? null);
  }, [w?.address, writes]);

  // Cooldown countdown: re-render every second while one is running (never "ended" before a
  // ledger read says so), and read the latest ledger every 3 s.
  const unlockAt = position.pos?.unlock_at ?? null;
  const cooling = unlockAt !== null && lastRead !== null && lastRead < Number(unlockAt);
  const unlockIn = unlockAt === null || now === null || lastRead === null
    ? null
    : cooling
    ? Math.max(1, Math.ceil(Number(unlockAt) - now))
    : 0;
  useEffect(() => {
    if (!cooling) return;
    const t = setInterval(() => setTick((n) => n + 1), 1000);
    const read = setInterval(async () => {
      const r = await reader();
      const t = await r.chainTime();
      if (t.value === null) return;
      const own = r.clock.view();
      setClock((c) => ({
        anchor: own.anchor,
        rate: own.rate ?? c?.rate ?? null,
        secsPerLedger: own.secsPerLedger ?? c?.secsPerLedger ?? null,
      }));
    }, 3000);
    return () => {
      clearInterval(t);
      clearInterval(read);
    };
  }, [cooling]);

  // Shares are priced with the unlocked capital: recent flash profit enters it gradually.
  const price = vaultSharePrice(state);
  const unlocked = state ? state.total_usdc - state.locked_profit : null;
  const cap = vcfg?.deposit_cap ?? null;
  const capLeft = cap !== null && state
    ? (cap > state.total_usdc ? cap - state.total_usdc : 0n)
    : null;
  const capUse = cap !== null && state ? ratio(state.total_usdc, cap) : null;
  const free = withdrawable(position.pos, lastRead);
  const parsed = parseAmount(amount);
  const depositIn = { amount: parsed, balance: position.usdcBalance, capLeft };
  const withdrawIn = {
    amount: parsed,
    shares: position.pos?.shares ?? null,
    free,
    unlockIn: null as number | null,
    rate,
  };

  const estimateOut =
    tab === "withdraw" && parsed !== null && state && unlocked !== null && state.total_shares > 0n
      ? (parsed * unlocked) / state.total_shares
      : null;
  const estimateShares =
    tab === "deposit" && parsed !== null && state && unlocked !== null && unlocked > 0n &&
      state.total_shares > 0n
      ? (parsed * state.total_shares) / unlocked
      : null;

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!w || parsed === null || parsed <= 0n || !config.vault) return;
    const signer = signerFor(w);
    let ok: unknown;
    if (tab === "deposit") {
      ok = await run(
        contractWrite<bigint>(config, config.vault, "deposit", [w.address, parsed], signer),
        (r) =>
          `Deposited ${formatUsdc(parsed)} for ${formatAmount(r.value, { decimals: 7 })} shares.`,
      );
    } else {
      ok = await run(
        contractWrite<bigint>(config, config.vault, "withdraw", [w.address, parsed], signer),
        (r) =>
          `Withdrew ${formatAmount(parsed, { decimals: 7 })} shares for ${
            formatUsdcExact(r.value)
          }.`,
      );
    }
    // Keep what the user typed when the write failed, so it can be corrected.
    if (ok !== null) {
      setAmount("");
      setMaxNote(null);
    }
    // A confirmed write refreshes every figure through `writesConfirmed`; a failed one here.
    if (ok === null) await refresh(w.address);
  };

  withdrawIn.unlockIn = unlockIn;
  const block = !w
    ? "Connect a wallet (top right) first."
    : !config.vault
    ? "No vault contract is configured."
    : position.loading && position.pos === null
    ? "Reading your position…"
    : amount !== "" && parsed === null
    ? "Enter a number with at most 7 decimals."
    : tab === "deposit"
    ? depositBlock(depositIn)
    : withdrawBlock(withdrawIn);
  const fillMax = () => {
    const m = tab === "deposit" ? depositMax(depositIn) : withdrawMax(withdrawIn);
    if (!m) return;
    setAmount(formatAmount(m.value, { decimals: 7, trim: true }).replace(/,/g, ""));
    setMaxNote(m.note);
  };

  const pos = position.pos;
  return (
    <div id="vault-panel">
      <div class="tiles six" id="vault-figures">
        <Tile
          id="tvl"
          label="TVL"
          value={formatUsdc(state?.total_usdc)}
          sub="total_usdc, unlocking profit included"
        />
        <Tile
          id="share-price"
          label="Share price"
          value={formatPrice(price)}
          sub="unlocked USDC per share"
        />
        <Tile
          id="total-profit"
          label="Total profit"
          value={formatUsdc(state?.total_profit)}
          sub="realized, on chain"
        />
        <Tile
          id="locked-profit"
          label="Profit unlocking"
          value={formatUsdc(state?.locked_profit)}
          sub={state && state.locked_profit > 0n
            ? <>until {formatTime(Number(state.unlock_end) * 1000, true)}</>
            : "none: all profit is in the price"}
        />
        <Tile id="total-shares" label="Total shares" value={formatAmount(state?.total_shares)} />
        <Tile
          id="cap-usage"
          label="Cap usage"
          value={formatPercent(capUse)}
          sub={
            <>
              {formatUsdc(state?.total_usdc)} of {formatUsdc(cap)}
              <Bar ratio={capUse} label="Deposit cap used" />
            </>
          }
        />
      </div>

      <div class="two-col even" style={{ marginTop: "16px" }}>
        <section class="panel" id="position">
          <div class="panel-head">
            <h2>Your position</h2>
            {w && <a href={`/dashboard/${w.address}`} class="small">History →</a>}
          </div>
          {!w
            ? (
              <p class="muted" id="position-empty">
                Connect a wallet (top right) to see your shares, their value and your cooldown.
              </p>
            )
            : (
              <>
                {position.error && <p class="notice error small">{position.error}</p>}
                <dl class="kv" id="position-figures" data-loading={position.loading ? "1" : "0"}>
                  <dt>Wallet</dt>
                  <dd class={w.kind === "dev" ? "dev-label" : ""}>{w.label}</dd>
                  <dt>Shares</dt>
                  <dd id="pos-shares">{formatAmount(pos?.shares, { decimals: 7 })}</dd>
                  <dt>Value</dt>
                  <dd id="pos-value">{formatUsdcExact(pos?.value)}</dd>
                  <dt>Withdrawable now</dt>
                  <dd id="pos-free">{formatAmount(free, { decimals: 7 })} shares</dd>
                  <dt>Cooldown</dt>
                  <dd id="pos-cooldown">
                    {unlockIn === null
                      ? DASH
                      : unlockIn > 0
                      ? `${chainDuration(unlockIn, rate)} left`
                      : "ended"}
                  </dd>
                  <dt>Wallet USDC</dt>
                  <dd id="pos-usdc">{formatUsdcExact(position.usdcBalance)}</dd>
                </dl>
              </>
            )}
        </section>

        <section class="panel" id="vault-actions">
          <div class="tabs" role="tablist">
            <button
              type="button"
              role="tab"
              aria-selected={tab === "deposit"}
              id="tab-deposit"
              onClick={() => {
                setTab("deposit");
                setAmount("");
                setMaxNote(null);
              }}
            >
              Deposit
            </button>
            <button
              type="button"
              role="tab"
              aria-selected={tab === "withdraw"}
              id="tab-withdraw"
              onClick={() => {
                setTab("withdraw");
                setAmount("");
                setMaxNote(null);
              }}
            >
              Withdraw
            </button>
          </div>
          <form onSubmit={submit} id={`${tab}-form`}>
            <div class="field">
              <label for="amount">
                {tab === "deposit" ? "Amount (USDC)" : "Shares to withdraw"}
              </label>
              <div class="input-row">
                <input
                  id="amount"
                  inputMode="decimal"
                  autoComplete="off"
                  placeholder="0.00"
                  value={amount}
                  onInput={(e) => {
                    setAmount((e.target as HTMLInputElement).value);
                    setMaxNote(null);
                  }}
                  disabled={!w || busy}
                />
                <button
                  type="button"
                  class="secondary"
                  id="amount-max"
                  disabled={!w || busy ||
                    (tab === "deposit" ? position.usdcBalance === null : free === null)}
                  onClick={fillMax}
                >
                  Max
                </button>
              </div>
              {maxNote && <div class="hint" id="max-note">{maxNote}</div>}
              <div class="hint" id="amount-hint">
                {amount !== "" && parsed === null
                  ? "Enter a number with at most 7 decimals."
                  : tab === "deposit"
                  ? (
                    <>
                      {estimateShares !== null && (
                        <>≈ {formatAmount(estimateShares, { decimals: 7 })} shares ·</>
                      )}
                      Room under the cap: {formatUsdc(capLeft)}
                      {parsed !== null && capLeft !== null && parsed > capLeft && (
                        <span class="neg">· over the cap</span>
                      )}
                    </>
                  )
                  : (
                    <>
                      {estimateOut !== null && <>≈ {formatUsdcExact(estimateOut)} ·</>}
                      Share price {formatPrice(price)}
                    </>
                  )}
              </div>
            </div>
            <button
              type="submit"
              id={`${tab}-submit`}
              disabled={busy || block !== null}
              aria-describedby="form-block"
            >
              {busy ? "Working…" : tab === "deposit" ? "Deposit" : "Withdraw"}
            </button>
            {block !== null && w && !busy && (
              <p class="hint block-reason" id="form-block" role="status">{block}</p>
            )}
          </form>
          <WriteStatus state={ws} explorer={config.explorerTx} id="vault-write" />
          <p class="hint">
            {tab === "deposit"
              ? (
                <>
                  New shares are locked for{" "}
                  {vcfg ? chainDuration(Number(vcfg.withdraw_cooldown), rate) : DASH}{" "}
                  (withdraw cooldown).
                </>
              )
              : (
                <>
                  Shares pay out at the unlocked share price; profit still unlocking stays with the
                  depositors who remain.
                </>
              )}
          </p>
        </section>
      </div>
    </div>
  );
}
