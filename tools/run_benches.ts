/**
 * Runs every benchmark in `bench/` one after another (they measure throughput, so they must not
 * share the machine with each other) and prints each one's figures under a heading.
 * `deno task bench [name …]` runs only the named ones (e.g. `localnet`, `keeper`); flags after
 * the names are passed to each (`deno task bench race --minutes 10`).
 */
const dir = new URL("../bench/", import.meta.url);
// Flags (`--minutes 10`) go to the benchmarks; the other arguments name them.
const flagAt = Deno.args.findIndex((a) => a.startsWith("--"));
const wanted = flagAt < 0 ? Deno.args : Deno.args.slice(0, flagAt);
const passed = flagAt < 0 ? [] : Deno.args.slice(flagAt).filter((a, i) => i > 0 || a !== "--");
const files: string[] = [];
for await (const e of Deno.readDir(dir)) {
  if (!e.isFile || !e.name.endsWith("_bench.ts")) continue;
  const short = e.name.replace(/_bench\.ts$/, "");
  if (wanted.length === 0 || wanted.includes(short)) files.push(e.name);
}
files.sort();
if (files.length === 0) {
  console.error(`no benchmark matches ${wanted.join(", ")}`);
  Deno.exit(2);
}
let failed = 0;
for (const name of files) {
  console.log(`\n=== bench/${name} ===`);
  const started = performance.now();
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--cached-only", "--frozen", new URL(name, dir).href, ...passed],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`=== bench/${name}: ${code === 0 ? "done" : `exit ${code}`} in ${secs} s ===`);
  if (code !== 0) failed++;
}
Deno.exit(failed === 0 ? 0 : 1);
