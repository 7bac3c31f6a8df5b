/**
 * Runs the test suite with Deno's runner (sanitizers on) and ends with the line
 * `N passed, N failed` that CI's parser reads. Extra arguments are passed to `deno test`
 * (e.g. a path or `--filter`).
 */
const MEMBERS = (JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)))
  .workspace as string[]).map((m) => m.replace(/^\.\//, "") + "/");
// Unit tests sit beside their modules (members, tools/); tests/ holds the cross-member ones.
const args = Deno.args.length > 0 ? Deno.args : [...MEMBERS, "tests/", "tools/"];
const cmd = new Deno.Command(Deno.execPath(), {
  args: [
    "test",
    "-A",
    // Nothing is downloaded while testing: `npm ci` cached every package with the lock file.
    "--cached-only",
    "--frozen",
    "--sanitize-ops",
    "--sanitize-resources",
    "--parallel",
    ...args,
  ],
  stdout: "piped",
  stderr: "inherit",
  env: { DENO_JOBS: Deno.env.get("DENO_JOBS") ?? "2" },
});
const child = cmd.spawn();
const decoder = new TextDecoder();
let tail = "";
for await (const chunk of child.stdout) {
  await Deno.stdout.write(chunk);
  tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4000);
}
const status = await child.status;
// Deno's summary: "ok | 12 passed (3 steps) | 0 failed (1ms)" or "FAILED | 3 passed | 1 failed".
// deno-lint-ignore no-control-regex
const plain = tail.replace(/\x1b\[[0-9;]*m/g, "");
const m = [...plain.matchAll(/(\d+) passed(?: \((\d+) steps?\))? \| (\d+) failed/g)].at(-1);
const passed = m ? Number(m[1]) : 0;
const failed = m ? Number(m[3]) : (status.success ? 0 : 1);
console.log(`${passed} passed, ${failed} failed`);
Deno.exit(status.code);
