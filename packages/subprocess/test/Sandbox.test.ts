import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { LocalProcessLauncher, Sandbox } from "../src/index.ts"

const launcher = LocalProcessLauncher.make({ killGrace: "500 millis" })
const probe = await Effect.runPromise(Sandbox.probeBwrap(launcher))
if (!probe.works) console.log(`skipping the bubblewrap sandbox tests: ${probe.problem}`)

const settings: Sandbox.SandboxSettings = { mode: "on", network: false, writable: [] }

/** Runs a bash script confined in `cwd` and returns its output and exit code. */
const confined = (script: string, cwd: string, s: Sandbox.SandboxSettings = settings, hidden?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sandbox = yield* Sandbox.make(s, launcher, { hidden })
    const plan = yield* sandbox.plan({ command: "bash", args: ["-c", script], cwd })
    assert.strictEqual(plan._tag, "Confined")
    if (plan._tag !== "Confined") return yield* Effect.die("not confined")
    return yield* launcher.run({ command: plan.command, args: plan.args, cwd, timeout: "20 seconds" })
  })

/** A TCP server on 127.0.0.1 for the duration of the effect. */
const withServer = <A, E>(use: (port: number) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.callback<ReturnType<typeof createServer>>((resume) => {
      const server = createServer((socket) => socket.on("error", () => undefined).end("hello\n"))
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => use((server.address() as { port: number }).port),
    (server) => Effect.sync(() => void server.close())
  )

describe.skipIf(!probe.works)("bubblewrap sandbox (real bwrap)", () => {
  it.live("writes land inside the working directory and nowhere else, even for root", () =>
    Effect.gen(function*() {
      const cwd = mkdtempSync(join(tmpdir(), "dsh-sbx-cwd-"))
      // Outside /tmp (which the sandbox replaces with its own), so the write meets the read-only root.
      const outside = mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : homedir(), "dsh-sbx-out-"))
      // The same write works unconfined: only the sandbox stops it, not file permissions.
      const control = yield* launcher.run({ command: "bash", args: ["-c", `echo x > ${outside}/control`], cwd })
      assert.strictEqual(control.exitCode, 0)
      const r = yield* confined(`echo in > inside.txt && echo ok-inside; echo out > ${outside}/escape.txt; echo t > /tmp/private && ls /tmp; mount -o remount,rw / 2>/dev/null || echo no-remount`, cwd)
      assert.include(r.stdout, "ok-inside")
      assert.include(r.stderr, "Read-only file system")
      assert.include(r.stdout, "no-remount")
      assert.strictEqual(readFileSync(join(cwd, "inside.txt"), "utf8"), "in\n")
      assert.isFalse(existsSync(join(outside, "escape.txt")))
      rmSync(outside, { recursive: true, force: true })
      // /tmp inside is private: the file written there is not the host's.
      assert.isFalse(existsSync("/tmp/private"))
    }))

  it.live("no ancestor's /proc/<pid>/environ is reachable", () =>
    Effect.gen(function*() {
      const cwd = mkdtempSync(join(tmpdir(), "dsh-sbx-proc-"))
      const r = yield* confined(`cat /proc/$PPID/environ; echo "rc=$?"; cat /proc/${process.pid}/environ 2>&1 | head -c 0; test -e /proc/${process.pid} && echo parent-visible; ls /proc | grep -cE '^[0-9]+$'`, cwd)
      assert.include(r.stdout, "rc=1")
      assert.notInclude(r.stdout, "parent-visible")
      assert.isAtMost(Number(r.stdout.trim().split("\n").at(-1)), 3)
    }))

  it.live("no network unless allowed: a local TCP server is unreachable", () =>
    withServer((port) =>
      Effect.gen(function*() {
        const cwd = mkdtempSync(join(tmpdir(), "dsh-sbx-net-"))
        const script = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3 || echo refused`
        const control = yield* launcher.run({ command: "bash", args: ["-c", script], cwd })
        assert.include(control.stdout, "hello")
        assert.include((yield* confined(script, cwd)).stdout, "refused")
        assert.include((yield* confined(script, cwd, { ...settings, network: true })).stdout, "hello")
      })
    ))

  it.live("extra writable paths are bound writable", () =>
    Effect.gen(function*() {
      const cwd = mkdtempSync(join(tmpdir(), "dsh-sbx-w-"))
      const extra = mkdtempSync(join(tmpdir(), "dsh-sbx-extra-"))
      const r = yield* confined(`echo y > ${extra}/ok.txt && echo wrote`, cwd, { ...settings, writable: [extra] })
      assert.include(r.stdout, "wrote")
      assert.strictEqual(readFileSync(join(extra, "ok.txt"), "utf8"), "y\n")
    }))

  it.live("a hidden path stays hidden even when a bound directory holds it", () =>
    Effect.gen(function*() {
      // A bound working directory holding the hidden one, as /tmp holds the resident's sockets.
      const cwd = mkdtempSync(join(tmpdir(), "dsh-sbx-hide-"))
      const hidden = join(cwd, "private")
      mkdirSync(hidden)
      writeFileSync(join(hidden, "secret"), "s")
      const look = `cat private/secret 2>/dev/null && echo seen || echo unseen`
      assert.include((yield* confined(look, cwd)).stdout, "seen")
      assert.include((yield* confined(look, cwd, settings, [hidden])).stdout, "unseen")
      // Not bound, it is hidden already: nothing is mounted for it.
      assert.notInclude(Sandbox.bwrapArgs({ cwd: "/work", hidden: ["/tmp/dsh-0"] }), "/tmp/dsh-0")
      assert.include(Sandbox.bwrapArgs({ cwd: "/tmp", hidden: ["/tmp/dsh-0"] }), "/tmp/dsh-0")
    }))

  it.live("a timeout stops everything the confined command started", () =>
    Effect.gen(function*() {
      const cwd = mkdtempSync(join(tmpdir(), "dsh-sbx-time-"))
      const sandbox = yield* Sandbox.make(settings, launcher)
      // A duration no other process on this machine uses, so pgrep finds only ours.
      const marker = `sleep ${(300 + Math.random()).toFixed(6)}`
      const plan = yield* sandbox.plan({ command: "bash", args: ["-c", `${marker} & ${marker}; echo never`], cwd })
      if (plan._tag !== "Confined") return assert.fail("not confined")
      const r = yield* launcher.run({ command: plan.command, args: plan.args, cwd, timeout: "300 millis" })
      assert.isTrue(r.timedOut)
      const left = yield* launcher.run({ command: "pgrep", args: ["-f", `^${marker}$`] })
      assert.strictEqual(left.stdout.trim(), "")
    }))
})

describe("without a working bwrap", () => {
  it.live("`on` refuses with how to install it; `auto` runs unconfined and warns once; `off` never probes", () =>
    Effect.gen(function*() {
      const noBwrap = { path: "/nonexistent" }
      const on = yield* Sandbox.make({ ...settings, mode: "on" }, launcher, noBwrap)
      const refused = yield* on.plan({ command: "true", cwd: tmpdir() })
      assert.strictEqual(refused._tag, "Refused")
      if (refused._tag === "Refused") assert.include(refused.reason, "apt-get install bubblewrap")
      const auto = yield* Sandbox.make({ ...settings, mode: "auto" }, launcher, noBwrap)
      const first = yield* auto.plan({ command: "true", cwd: tmpdir() })
      const second = yield* auto.plan({ command: "true", cwd: tmpdir() })
      assert.deepInclude(first, { _tag: "Unconfined" })
      assert.include(first._tag === "Unconfined" ? first.warning ?? "" : "", "bwrap is not installed")
      assert.deepStrictEqual(second, { _tag: "Unconfined", warning: undefined })
      const off = yield* Sandbox.make({ ...settings, mode: "off" }, launcher, noBwrap)
      assert.deepStrictEqual(yield* off.plan({ command: "true", cwd: tmpdir() }), { _tag: "Unconfined" })
      assert.isFalse((yield* on.probe).works)
    }))
})
