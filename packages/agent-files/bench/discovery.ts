// Agent-file discovery under hostile input: 2,000 fuzzed files in one project directory
// (valid ones, deep and huge YAML, alias bombs, binary and random bytes, long bodies), resolved
// as `dsh run` resolves them. Prints wall time and peak RSS against absolute bounds (5 s, 300 MiB).
//   node --conditions=@dsh/source packages/agent-files/bench/discovery.ts [files]
import { randomBytes } from "node:crypto"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { ResolveAgents } from "../src/index.ts"

const FILES = Number(process.argv[2] ?? 2000)
const root = mkdtempSync(join(tmpdir(), "dsh-fuzz-"))
const dir = join(root, "repo", ".agents", "agents")
mkdirSync(join(root, "repo", ".git"), { recursive: true })
mkdirSync(dir, { recursive: true })
mkdirSync(join(root, "home", ".dsh"), { recursive: true })

const kinds: ReadonlyArray<(i: number) => string | Uint8Array> = [
  (i) => `---\nname: agent-${i}\ndescription: a valid agent number ${i}\ntools: Read, Grep\n---\nYou are agent ${i}.\n`,
  (i) => `---\nname: y-${i}\ndescription: >\n  folded text\n  for ${i}\ntools:\n  - Read\n  - Bash\nmodel: openai:gpt-4.1\n---\nbody\n`,
  (i) => `---\ndescription: deep ${i}\ntools: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n---\nbody\n`,
  (i) => `---\ndescription: nested ${i}\n${Array.from({ length: 400 }, (_, d) => `${" ".repeat(d)}k${d}:`).join("\n")} x\n---\nbody\n`,
  (i) => `---\ndescription: bomb ${i}\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n---\nbody\n`,
  () => randomBytes(4096),
  (i) => `---\ndescription: huge ${i}\n---\n${"lorem ipsum ".repeat(30_000)}\n`,
  (i) => `---\nname: long-${i}\ndescription: ${"word ".repeat(2_000)}\n---\n${"a line\n".repeat(2_000)}`
]
for (let i = 0; i < FILES; i++) writeFileSync(join(dir, `f${i}.md`), kinds[i % kinds.length]!(i))

const start = performance.now()
const resolved = await Effect.runPromise(ResolveAgents.resolveAgents({ cwd: join(root, "repo"), dshHome: join(root, "home", ".dsh"), userHome: join(root, "home") }))
const wall = performance.now() - start
const peakMiB = process.resourceUsage().maxRSS / 1024
console.log(`discovery of ${FILES} fuzzed files: ${(wall / 1000).toFixed(2)} s (target < 5 s), peak RSS ${peakMiB.toFixed(0)} MiB (target < 300 MiB); ${resolved.agents.length} agents, ${resolved.skipped.length} skipped with a reason`)
console.log(JSON.stringify({ bench: "agent-discovery", files: FILES, seconds: Number((wall / 1000).toFixed(2)), targetSeconds: 5, peakRssMiB: Math.round(peakMiB), targetRssMiB: 300, agents: resolved.agents.length, skipped: resolved.skipped.length }))
