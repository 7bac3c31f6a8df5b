/**
 * The write status copy for archived state, rendered: the automatic restore (protocol 23+)
 * has no restoring stage and says the one transaction restores it, with the fee and the
 * restore's share; an older RPC's separate restore says the wallet signs it first.
 */
import assert from "node:assert/strict";
import { render } from "preact-render-to-string";
import { type WriteState, WriteStatus } from "./write.tsx";

const base: WriteState = {
  stage: "signing",
  status: "running",
  hash: null,
  error: null,
  message: null,
  restoreFee: null,
  autoRestore: null,
};

const stagesOf = (html: string) => [...html.matchAll(/data-stage="(\w+)"/g)].map((m) => m[1]);
const text = (html: string) => html.replace(/<[^>]+>/g, "").replace(/&#x2014;/g, "—");

Deno.test("automatic restore: no restoring stage; entries, fee and the restore's share", () => {
  const html = render(
    <WriteStatus
      id="w"
      explorer={null}
      state={{
        ...base,
        autoRestore: { entries: 3, resourceFee: "56123", restoreFee: "35870" },
      }}
    />,
  );
  assert.deepEqual(stagesOf(html), ["building", "signing", "submitted", "confirmed"]);
  assert.match(html, /data-restore="auto"/);
  const t = text(html);
  assert.match(t, /also restores it — 3 archived entries — with the same signature/);
  assert.match(t, /no separate step/);
  assert.match(t, /at most 0\.0056123 XLM, includes the restore: at most 0\.003587 XLM of it\./);
  assert.doesNotMatch(t, /signs a restore first/);
});

Deno.test("automatic restore without the restore-alone figure: the fee only, still labelled", () => {
  const t = text(render(
    <WriteStatus
      id="w"
      explorer={null}
      state={{ ...base, autoRestore: { entries: 1, resourceFee: "20000", restoreFee: null } }}
    />,
  ));
  assert.match(t, /1 archived entry —/);
  assert.match(t, /at most 0\.0020 XLM, includes the restore\./);
});

Deno.test("an older RPC's restore preamble: the restoring stage, signed first", () => {
  const html = render(
    <WriteStatus
      id="w"
      explorer={null}
      state={{ ...base, stage: "restoring", restoreFee: "41000" }}
    />,
  );
  assert.deepEqual(stagesOf(html), ["building", "restoring", "signing", "submitted", "confirmed"]);
  assert.match(html, /data-restore="separate"/);
  assert.match(
    text(html),
    /Your wallet signs a restore first, costing at most 0\.0041 XLM in fees; then the transaction itself/,
  );
});
