import { ListenAddress } from "@dsh/core"
import { Effect, Result, Schema } from "effect"
import { createServer } from "node:net"
import type { RunnerAddressInput } from "./ClusterLayers.ts"

/** A runner address that cannot be used: a malformed `HOST:PORT`, or a host nothing can listen on. */
export class RunnerListenError extends Schema.TaggedError<RunnerListenError>()("RunnerListenError", {
  message: Schema.String
}) {}

/** A port nothing listens on now on `host` (the runner binds it a moment later). */
const freePort = (host: string) =>
  Effect.callback<number, RunnerListenError>((resume) => {
    const probe = createServer()
    probe.once("error", (e) => resume(Effect.fail(new RunnerListenError({ message: `--listen: cannot listen on ${host}: ${e.message}` }))))
    probe.listen(0, host, () => {
      const address = probe.address()
      probe.close(() => resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0)))
    })
  })

/**
 * Where a runner listens, from `HOST:PORT`, `HOST` or `:PORT` (a runner's `--listen`): the
 * missing host is 127.0.0.1; a missing port, or port 0, is a free one picked here, since a
 * runner must advertise the port it really has to the other members.
 */
export const runnerListenAddress = (value: string | undefined): Effect.Effect<RunnerAddressInput, RunnerListenError> =>
  Effect.gen(function*() {
    const parsed = ListenAddress.parse(value ?? "")
    if (Result.isFailure(parsed)) return yield* new RunnerListenError({ message: parsed.failure })
    const { host, port } = parsed.success
    return { host, port: port === 0 ? yield* freePort(host) : port }
  })
