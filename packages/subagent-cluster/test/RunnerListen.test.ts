import { Effect } from "effect"
import { createServer } from "node:net"
import { describe, expect, it } from "vitest"
import { RunnerListen } from "../src/index.ts"

describe("runnerListenAddress", () => {
  it("picks a free port for port 0 or none, on 127.0.0.1 when no host is given", async () => {
    const picked = await Effect.runPromise(RunnerListen.runnerListenAddress(":0"))
    expect(picked.host).toBe("127.0.0.1")
    expect(picked.port).toBeGreaterThan(0)
    // The port really is free: a server binds it.
    await new Promise<void>((done, fail) => {
      const server = createServer().once("error", fail).listen(picked.port, picked.host, () => server.close(() => done()))
    })
    expect(await Effect.runPromise(RunnerListen.runnerListenAddress("[::1]:4100"))).toEqual({ host: "::1", port: 4100 })
  })

  it("refuses a port out of range, naming what was given", async () => {
    const error = await Effect.runPromise(Effect.flip(RunnerListen.runnerListenAddress("127.0.0.1:70000")))
    expect(error.message).toBe("--listen must be HOST:PORT with a port from 0 to 65535 (got \"127.0.0.1:70000\")")
  })
})
