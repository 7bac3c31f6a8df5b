/**
 * One clock for every page: the chain's ledger close time. A network whose ledger clock runs
 * faster (or slower) than real time — the demo's local node closes a ledger every ~200 ms and
 * advances its close time 1 s each, about 5× — is measured from samples of the latest ledger
 * (its sequence and close time against this machine's wall clock) and said in one line.
 *
 * Keeper log lines carry wall times; {@link ChainClock.chainTimeOf} maps them onto the chain's
 * clock so the same event shows the same time in the live log and in the history, and never a
 * time after the chain's current time.
 *
 * Pure and browser-safe (the islands use it with the server's samples).
 *
 * @module
 */

/** One reading of the latest ledger. */
export interface ClockSample {
  /** This machine's clock when the reading came back, ms since epoch. */
  wall: number;
  /** The ledger's close time, Unix seconds. */
  chain: number;
  /** The ledger's sequence. */
  seq: number;
}

/**
 * Least ledgers between two samples for a rate: the close time moves in steps of one ledger,
 * so ten of them keep the error near 10 % on any network (5 s ledgers: about 50 s of samples).
 */
export const MIN_LEDGERS = 10;
/** Least wall time between two samples for a rate (ms): round trips stay small against it. */
export const MIN_WALL_MS = 2_000;
/** Samples older than this are dropped (ms): the rate describes the recent ledgers. */
export const WINDOW_MS = 10 * 60_000;
/** The rate is said only outside [1/1.5, 1.5]: a real network's jitter stays inside. */
export const RATE_SAID_ABOVE = 1.5;

/**
 * Chain seconds per wall second between the oldest and the newest sample, or null when they
 * are too close (fewer than {@link MIN_LEDGERS} ledgers or {@link MIN_WALL_MS} apart).
 */
export function clockRate(samples: readonly ClockSample[]): number | null {
  if (samples.length < 2) return null;
  const a = samples[0], b = samples[samples.length - 1];
  const wall = b.wall - a.wall;
  if (b.seq - a.seq < MIN_LEDGERS || wall < MIN_WALL_MS) return null;
  const rate = ((b.chain - a.chain) * 1000) / wall;
  return Number.isFinite(rate) && rate > 0 ? rate : null;
}

/** Whether a rate is far enough from 1 to tell the reader. */
export function rateIsNotable(rate: number | null): rate is number {
  return rate !== null && (rate > RATE_SAID_ABOVE || rate < 1 / RATE_SAID_ABOVE);
}

/** "5×", "4.8×", "0.5×": one decimal below 10, none above. */
export function formatRate(rate: number): string {
  const s = rate >= 10 ? Math.round(rate).toString() : rate.toFixed(1).replace(/\.0$/, "");
  return `${s}\u00d7`;
}

/** What the islands need of the server's clock (plain JSON). */
export interface ClockView {
  /** The newest sample, or null when the chain was never read. */
  anchor: ClockSample | null;
  /** Measured rate, or null when unknown. */
  rate: number | null;
  /** Close-time seconds per ledger over the samples, or null when unknown. */
  secsPerLedger: number | null;
}

/** Close-time seconds per ledger between the oldest and newest sample (null: too few ledgers). */
export function secsPerLedger(samples: readonly ClockSample[]): number | null {
  if (samples.length < 2) return null;
  const a = samples[0], b = samples[samples.length - 1];
  if (b.seq - a.seq < MIN_LEDGERS) return null;
  return (b.chain - a.chain) / (b.seq - a.seq);
}

/**
 * The close time (ms) of ledger `seq`, estimated from the anchor and the seconds per ledger;
 * null when either is unknown. Never after the anchor's.
 */
export function chainTimeOfLedger(view: ClockView, seq: number): number | null {
  const a = view.anchor;
  if (!a || view.secsPerLedger === null) return null;
  return Math.min(a.chain, a.chain - (a.seq - seq) * view.secsPerLedger) * 1000;
}

/**
 * The chain time (ms) at wall time `wallMs`, from a view: the anchor's close time plus the wall
 * time since, scaled by the rate (1 when unknown). Null without an anchor.
 */
export function chainAt(view: ClockView, wallMs: number): number | null {
  const a = view.anchor;
  if (!a) return null;
  return a.chain * 1000 + (wallMs - a.wall) * (view.rate ?? 1);
}

/**
 * A wall time (ms) of a past event mapped onto the chain's clock, never later than the chain's
 * time at `nowWallMs`. Null without an anchor.
 */
export function chainTimeOfWall(view: ClockView, wallMs: number, nowWallMs: number): number | null {
  const t = chainAt(view, wallMs), now = chainAt(view, nowWallMs);
  if (t === null || now === null) return null;
  return Math.min(t, now);
}

/** Real time (seconds) a chain-time duration takes at the view's rate. */
export function realSeconds(view: ClockView, chainSeconds: number): number {
  return chainSeconds / (view.rate ?? 1);
}

/** Samples of the latest ledger, kept for {@link WINDOW_MS}; one per server (or page). */
export class ChainClock {
  #samples: ClockSample[] = [];

  /** Records a reading (ignored when the ledger did not move on from the last one). */
  observe(s: ClockSample): void {
    const last = this.#samples.at(-1);
    if (last && s.seq <= last.seq) return;
    this.#samples.push(s);
    const from = s.wall - WINDOW_MS;
    // Keep the oldest sample that still lies inside the window.
    while (this.#samples.length > 2 && this.#samples[1].wall <= from) this.#samples.shift();
  }

  /** The measured rate, or null (see {@link clockRate}). */
  rate(): number | null {
    return clockRate(this.#samples);
  }

  /** The view the pages and islands use. */
  view(): ClockView {
    return {
      anchor: this.#samples.at(-1) ?? null,
      rate: this.rate(),
      secsPerLedger: secsPerLedger(this.#samples),
    };
  }
}
