// Cold import of what a minimal harness needs (issue #24 item 3), from the built dist as a user
// imports it: (a) `@dsh/kit`; (b) `@dsh/subagent` + the in-process backends
// (`@dsh/subagent-inprocess`) + the `subagent` tool (`@dsh/tool-subagent`); (c) the same Effect modules
// alone (every `effect` file (a) or (b) loads, found by tracing the process), and `node -e 0`.
// Each a fresh process, median of ROUNDS, interleaved. Target: (a)/(c) and (b)/(c) <= 1.5x.
//   pnpm run build && node packages/kit/bench/import.ts
import { loadavg } from "node:os"
import { appWith, packageOf, timeCold, traceModules } from "./lib/cold.ts"

const ROUNDS = 15

const app = appWith(["kit", "subagent", "subagent-inprocess", "tool-subagent"])
const kit = { code: `import "@dsh/kit"`, cwd: app.dir }
const core = {
  code: ["@dsh/subagent", "@dsh/subagent-inprocess", "@dsh/tool-subagent"].map((p) => `import "${p}"`).join("\n"),
  cwd: app.dir
}

/** What a case loads, by package, and the same `effect` files on their own. */
const traced = (c: typeof kit) => {
  const urls = traceModules(c)
  const byPackage = new Map<string, number>()
  for (const u of urls) byPackage.set(packageOf(u), (byPackage.get(packageOf(u)) ?? 0) + 1)
  const effectFiles = urls.filter((u) => packageOf(u) === "effect")
  return {
    modules: urls.length,
    byPackage: Object.fromEntries([...byPackage].sort((a, b) => b[1] - a[1])),
    effectAlone: { code: effectFiles.map((u) => `import ${JSON.stringify(u)}`).join("\n"), cwd: app.dir }
  }
}
const kitTrace = traced(kit)
const coreTrace = traced(core)

const { wall, cpu } = timeCold({
  kit,
  core,
  effectOfKit: kitTrace.effectAlone,
  effectOfCore: coreTrace.effectAlone,
  node: { code: "0", cwd: app.dir }
}, ROUNDS)
app.dispose()

const r = (a: number, b: number) => Number((a / b).toFixed(2))
const f = (x: number) => `${x.toFixed(1)} ms`
const load = loadavg().map((x) => x.toFixed(2)).join(" ")
const line = (what: string, ms: typeof wall) =>
  `${what}: (a) @dsh/kit ${f(ms.kit)}, its Effect modules alone ${f(ms.effectOfKit)} (${r(ms.kit, ms.effectOfKit)}x, target <= 1.5x); ` +
  `(b) @dsh/subagent + in-process backends + subagent tool ${f(ms.core)}, its Effect modules alone ${f(ms.effectOfCore)} (${r(ms.core, ms.effectOfCore)}x, target <= 1.5x); ` +
  `node -e 0 ${f(ms.node)} (kit ${r(ms.kit, ms.node)}x, core ${r(ms.core, ms.node)}x)`
console.log(`modules loaded: @dsh/kit ${kitTrace.modules} ${JSON.stringify(kitTrace.byPackage)}`)
console.log(`modules loaded: @dsh/subagent + spawn + fork + tool-subagent ${coreTrace.modules} ${JSON.stringify(coreTrace.byPackage)}`)
console.log(line(`cold import, wall time, median of ${ROUNDS} fresh processes`, wall))
console.log(line(`cold import, CPU time (user + system, all threads) of the same processes`, cpu))
console.log(`load average ${load}`)
const rounded = (ms: typeof wall) => Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Number((v as number).toFixed(1))]))
console.log(JSON.stringify({
  bench: "kit-import",
  wallMs: rounded(wall),
  cpuMs: rounded(cpu),
  kitVsEffect: r(wall.kit, wall.effectOfKit),
  coreVsEffect: r(wall.core, wall.effectOfCore),
  kitVsEffectCpu: r(cpu.kit, cpu.effectOfKit),
  coreVsEffectCpu: r(cpu.core, cpu.effectOfCore),
  kitVsNode: r(wall.kit, wall.node),
  coreVsNode: r(wall.core, wall.node),
  modules: { kit: kitTrace.byPackage, core: coreTrace.byPackage },
  loadAverage: load
}))
