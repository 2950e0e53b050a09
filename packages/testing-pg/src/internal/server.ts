/**
 * One PostgreSQL cluster in a temp directory: `initdb`, then `postgres` on a free port of
 * 127.0.0.1 (no Unix socket), ready when the server says so on stderr; stopped with SIGINT (fast
 * shutdown, SIGKILL after a grace) and its directory removed. As root, the directory is owned by
 * the service user and both programs run as it.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Binaries } from "./binaries.ts"

export interface ServerOptions {
  /**
   * Keep PostgreSQL's durability (fsync, synchronous commit, full-page writes): for benchmarks.
   * Tests turn it off, which makes every commit and `CREATE DATABASE` much cheaper.
   */
  readonly durable?: boolean | undefined
  /** How long `initdb` plus start-up may take (default 60 s). */
  readonly startTimeoutMs?: number | undefined
  /**
   * More server settings (`name=value`, as `postgres -c`), after the defaults: e.g.
   * `shared_preload_libraries=pg_stat_statements` for a benchmark that counts statements.
   */
  readonly settings?: ReadonlyArray<string> | undefined
}

export interface Running {
  readonly host: string
  readonly port: number
  readonly user: string
  readonly password: string
  readonly stop: () => Promise<void>
}

const TAIL = 4096
const READY = "database system is ready to accept connections"

/** A port nothing listens on now (the server binds it a moment later; a clash is retried). */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")))
    })
  })

const ids = (b: Binaries) => b.runAs === undefined ? {} : { uid: b.runAs.uid, gid: b.runAs.gid }

/** Runs a program to its end; rejects with the tail of its output when it fails. */
const runToEnd = (command: string, args: ReadonlyArray<string>, b: Binaries, what: string): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { ...ids(b), stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C" } })
    let tail = ""
    const keep = (chunk: Buffer) => (tail = (tail + chunk.toString("utf8")).slice(-TAIL))
    child.stdout.on("data", keep)
    child.stderr.on("data", keep)
    child.once("error", (e) => reject(new Error(`${what}: ${e.message}`)))
    child.once("close", (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${what} failed (${signal ?? `exit ${code}`}): ${tail.trim().split("\n").slice(-3).join(" | ")}`)))
  })

/** Starts `postgres` and waits for its readiness line; `retry` when the port was taken meanwhile. */
const launch = (b: Binaries, data: string, port: number, options: ServerOptions): Promise<{ readonly child: ChildProcess } | "retry"> =>
  new Promise((resolve, reject) => {
    const settings = [
      "listen_addresses=127.0.0.1",
      "unix_socket_directories=",
      "lc_messages=C",
      "max_connections=200",
      "shared_buffers=32MB",
      ...(options.durable === true ? [] : ["fsync=off", "synchronous_commit=off", "full_page_writes=off"]),
      ...(options.settings ?? [])
    ]
    const child = spawn(b.postgres, ["-D", data, "-p", String(port), ...settings.flatMap((s) => ["-c", s])], {
      ...ids(b),
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, LC_ALL: "C" }
    })
    let tail = ""
    let ready = false
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`postgres did not start within ${options.startTimeoutMs ?? 60_000} ms: ${tail.trim().split("\n").slice(-3).join(" | ")}`))
    }, options.startTimeoutMs ?? 60_000)
    child.stderr!.on("data", (chunk: Buffer) => {
      if (ready) return
      tail = (tail + chunk.toString("utf8")).slice(-TAIL)
      if (tail.includes(READY)) {
        ready = true
        clearTimeout(timer)
        // Keep reading (and dropping) its log, so the pipe never fills up.
        child.stderr!.resume()
        resolve({ child })
      }
    })
    child.once("error", (e) => {
      clearTimeout(timer)
      reject(new Error(`postgres: ${e.message}`))
    })
    child.once("exit", (code, signal) => {
      if (ready) return
      clearTimeout(timer)
      if (/could not bind|Address already in use/.test(tail)) resolve("retry")
      else reject(new Error(`postgres exited before it was ready (${signal ?? `exit ${code}`}): ${tail.trim().split("\n").slice(-3).join(" | ")}`))
    })
  })

/** Ends the server: SIGINT (fast shutdown), SIGKILL after `graceMs`. */
const terminate = (child: ChildProcess, graceMs: number): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill("SIGINT")
  })

/** A fresh cluster, started. Everything it made is removed by `stop`, or when starting fails. */
export const startServer = async (b: Binaries, options: ServerOptions = {}): Promise<Running> => {
  const base = mkdtempSync(join(tmpdir(), "dsh-pg-"))
  let child: ChildProcess | undefined
  const onExit = () => child?.kill("SIGINT")
  try {
    if (b.runAs !== undefined) chownSync(base, b.runAs.uid, b.runAs.gid)
    const user = "postgres"
    const password = randomBytes(12).toString("hex")
    const pwfile = join(base, "pwfile")
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 })
    if (b.runAs !== undefined) chownSync(pwfile, b.runAs.uid, b.runAs.gid)
    const data = join(base, "data")
    await runToEnd(b.initdb, [
      "-D", data, "-U", user, `--pwfile=${pwfile}`, "-A", "scram-sha-256", "-E", "UTF8", "--locale=C", "--no-instructions",
      ...(options.durable === true ? [] : ["--no-sync"])
    ], b, "initdb")
    rmSync(pwfile, { force: true })
    for (let attempt = 1; ; attempt++) {
      const port = await freePort()
      const launched = await launch(b, data, port, options)
      if (launched === "retry") {
        if (attempt < 5) continue
        throw new Error("postgres could not bind a free port after 5 attempts")
      }
      child = launched.child
      // A test process that exits without running its finalizers still stops the server.
      process.once("exit", onExit)
      const running = child
      return {
        host: "127.0.0.1",
        port,
        user,
        password,
        stop: async () => {
          process.off("exit", onExit)
          await terminate(running, 10_000)
          rmSync(base, { recursive: true, force: true })
        }
      }
    }
  } catch (cause) {
    process.off("exit", onExit)
    if (child !== undefined) await terminate(child, 5_000)
    rmSync(base, { recursive: true, force: true })
    throw cause
  }
}
