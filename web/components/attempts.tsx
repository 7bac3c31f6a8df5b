/**
 * A keeper's own attempts in words (the keeper pages say whose view it is around it).
 *
 * @module
 */
import type { AttemptSummary } from "../data/derive.ts";
import { formatCount } from "../data/format.ts";

/** "Its last 12 attempts: 5 filled, 6 lost races, 1 failed." — or that it has none yet. */
export function AttemptCounts(props: { summary: AttemptSummary }) {
  const a = props.summary;
  if (a.attempts === 0) return <>It has recorded no attempt yet.</>;
  return (
    <>
      {a.attempts === 1 ? "Its last attempt" : `Its last ${formatCount(a.attempts)} attempts`}:{" "}
      <span class="nowrap">{formatCount(a.filled)} filled</span>,{" "}
      <span class="nowrap" data-lost-races={a.lostRaces}>
        {formatCount(a.lostRaces)} {a.lostRaces === 1 ? "lost race" : "lost races"}
      </span>, <span class="nowrap">{formatCount(a.failed)} failed</span>.
    </>
  );
}
