import { mkdtempSync } from "node:fs"
import { connect, createServer, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { Protocol } from "../src/index.ts"

/** A connected pair of sockets over a Unix socket in a fresh directory. */
const pair = () =>
  new Promise<{ a: Socket; b: Socket; close: () => void }>((resolve) => {
    const path = join(mkdtempSync(join(tmpdir(), "dsh-lines-")), "s.sock")
    const server = createServer((b) => resolve({ a, b, close: () => server.close() }))
    let a: Socket
    server.listen(path, () => (a = connect(path)))
  })

describe("onLines", () => {
  it("delivers JSON lines split anywhere, and ends the connection at a line past the limit", async () => {
    const { a, b, close } = await pair()
    const got: Array<unknown> = []
    const closed = new Promise<void>((r) => b.once("close", () => r()))
    Protocol.onLines(b, (m) => got.push(m), 64)
    a.write("{\"start\":")
    a.write("1}\n{\"x\":2}\n")
    a.write(`{"big":"${"y".repeat(100)}"}\n{"after":3}\n`)
    await closed
    close()
    expect(got).toEqual([{ start: 1 }, { x: 2 }])
  })

  it("ends the connection at a line that is not JSON", async () => {
    const { a, b, close } = await pair()
    const got: Array<unknown> = []
    const closed = new Promise<void>((r) => b.once("close", () => r()))
    Protocol.onLines(b, (m) => got.push(m))
    a.write("{\"ok\":1}\nnot json\n{\"later\":2}\n")
    await closed
    close()
    expect(got).toEqual([{ ok: 1 }])
  })
})
