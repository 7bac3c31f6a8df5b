/**
 * A line chart drawn as server-side SVG from a real series. No points are invented: with
 * fewer than two points the chart says so instead of drawing a line. Values that change in
 * steps (the share price moves only when an event settles) can be drawn as steps.
 *
 * @module
 */
import { formatDay, formatTime } from "../data/format.ts";

/** One point: time (ms) and value. */
export interface ChartPoint {
  t: number;
  v: number;
}

/** Props of {@link LineChart}. */
export interface LineChartProps {
  points: ChartPoint[];
  /** Formats a y value for the axis and the point titles. */
  format: (v: number) => string;
  /** Accessible description, e.g. "Share price over time". */
  label: string;
  /** Draw horizontal steps between points (value holds until the next point). */
  step?: boolean;
  /** Shown instead of the chart with fewer than two points. */
  emptyText?: string;
  width?: number;
  height?: number;
  id?: string;
}

/** Picks `n` evenly spaced "nice" y ticks covering [min, max]. */
export function yTicks(min: number, max: number, n = 4): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / (n - 1);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const start = Math.floor(min / step) * step;
  const out: number[] = [];
  for (let v = start; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  if (out[out.length - 1] < max) out.push(Number((out[out.length - 1] + step).toPrecision(12)));
  return out;
}

/**
 * Server-rendered SVG line chart, drawn twice: a wide variant for desktops and a taller,
 * narrower one for phones (CSS shows one), so labels stay legible at both sizes.
 */
export function LineChart(props: LineChartProps) {
  const pts = props.points.filter((p) => Number.isFinite(p.t) && Number.isFinite(p.v))
    .slice().sort((a, b) => a.t - b.t);
  if (pts.length < 2 || pts[pts.length - 1].t === pts[0].t) {
    return (
      <div class="chart-empty" id={props.id} role="img" aria-label={props.label}>
        {props.emptyText ?? "Not enough history yet to draw a chart."}
      </div>
    );
  }
  return (
    <div id={props.id}>
      <ChartSvg
        {...props}
        pts={pts}
        variant="wide"
        W={props.width ?? 760}
        H={props.height ?? 250}
      />
      <ChartSvg {...props} pts={pts} variant="narrow" W={380} H={260} />
    </div>
  );
}

function ChartSvg(
  props: LineChartProps & { pts: ChartPoint[]; variant: "wide" | "narrow"; W: number; H: number },
) {
  const { pts, W, H } = props;
  const narrow = props.variant === "narrow";
  // Room for the HTML labels at the smallest width each variant shows at (12 px, ~8 digits).
  const padL = narrow ? 72 : 84, padR = narrow ? 8 : 14, padT = 12, padB = 26;
  let min = Math.min(...pts.map((p) => p.v)), max = Math.max(...pts.map((p) => p.v));
  if (max === min) {
    const d = Math.abs(max) * 0.005 || 1;
    min -= d;
    max += d;
  }
  const ticks = yTicks(min, max, narrow ? 4 : 5);
  const lo = Math.min(min, ticks[0]), hi = Math.max(max, ticks[ticks.length - 1]);
  const t0 = pts[0].t, t1 = pts[pts.length - 1].t;
  const x = (t: number) => padL + ((t - t0) / (t1 - t0)) * (W - padL - padR);
  const y = (v: number) => padT + (1 - (v - lo) / (hi - lo)) * (H - padT - padB);

  let d = `M${x(pts[0].t).toFixed(1)},${y(pts[0].v).toFixed(1)}`;
  for (let i = 1; i < pts.length; i++) {
    if (props.step) d += `H${x(pts[i].t).toFixed(1)}`;
    d += `${props.step ? "V" : "L"}${
      props.step ? y(pts[i].v).toFixed(1) : `${x(pts[i].t).toFixed(1)},${y(pts[i].v).toFixed(1)}`
    }`;
  }
  const area = `${d}V${(H - padB).toFixed(1)}H${x(t0).toFixed(1)}Z`;
  const xTickCount = narrow ? 3 : 4;
  const xTicks = Array.from(
    { length: xTickCount },
    (_, i) => t0 + (i * (t1 - t0)) / (xTickCount - 1),
  );
  const spanMs = t1 - t0;
  const xFmt = (t: number) => spanMs < 2 * 86_400_000 ? formatTime(t).slice(11, 16) : formatDay(t);
  const first = pts[0], last = pts[pts.length - 1];
  // Axis labels are HTML laid over the SVG at the same proportional positions: the SVG scales
  // with its box, so labels drawn inside it shrank to about 9 px on a phone; these keep the
  // stylesheet's size (at least 12 px) at any width.
  const pct = (v: number, of: number) => `${((v / of) * 100).toFixed(2)}%`;
  const yLabels = ticks.filter((v) => v >= lo && v <= hi);
  return (
    <div class={`chart-box chart-${props.variant}`}>
      {yLabels.map((v) => (
        <span
          key={`yl${v}`}
          class="axis-label y"
          style={{ top: pct(y(v), H), right: pct(W - padL + 6, W) }}
        >
          {props.format(v)}
        </span>
      ))}
      {xTicks.map((t, i) => (
        <span
          key={`xl${i}`}
          class={`axis-label x ${i === 0 ? "start" : i === xTickCount - 1 ? "end" : "mid"}`}
          style={i === xTickCount - 1 ? { right: pct(W - x(t), W) } : { left: pct(x(t), W) }}
        >
          {xFmt(t)}
        </span>
      ))}
      <ChartBody
        {...props}
        d={d}
        area={area}
        x={x}
        y={y}
        yLabels={yLabels}
        padL={padL}
        padR={padR}
        first={first}
        last={last}
      />
    </div>
  );
}

function ChartBody(
  props: LineChartProps & {
    pts: ChartPoint[];
    variant: "wide" | "narrow";
    W: number;
    H: number;
    d: string;
    area: string;
    x: (t: number) => number;
    y: (v: number) => number;
    yLabels: number[];
    padL: number;
    padR: number;
    first: ChartPoint;
    last: ChartPoint;
  },
) {
  const { pts, W, H, d, area, x, y, first, last, padL, padR } = props;
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${W} ${H}`}
      role="img"
      aria-label={`${props.label}: from ${props.format(first.v)} (${formatTime(first.t)}) to ${
        props.format(last.v)
      } (${formatTime(last.t)}), ${pts.length} points`}
    >
      <defs>
        <linearGradient id={`chart-fill-${props.variant}`} x1="0" x2="0" y1="0" y2="1">
          <stop offset="0%" stop-color="#3dd6b5" stop-opacity="0.8" />
          <stop offset="100%" stop-color="#3dd6b5" stop-opacity="0" />
        </linearGradient>
      </defs>
      {props.yLabels.map((v) => (
        <line key={`y${v}`} class="grid-line" x1={padL} x2={W - padR} y1={y(v)} y2={y(v)} />
      ))}
      <path class="area" d={area} fill={`url(#chart-fill-${props.variant})`} />
      <path class="series" d={d} data-points={pts.length} />
      {pts.length <= 60 &&
        pts.map((p, i) => (
          <circle key={`p${i}`} class="point" cx={x(p.t)} cy={y(p.v)} r={2.5}>
            <title>{`${formatTime(p.t)}: ${props.format(p.v)}`}</title>
          </circle>
        ))}
    </svg>
  );
}
