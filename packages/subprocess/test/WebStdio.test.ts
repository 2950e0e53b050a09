import { spawn } from "node:child_process"
import { describe, expect, it } from "vitest"
import { WebStdio } from "../src/index.ts"

// A real child's stdio as web streams: bytes round-trip, and closing our side ends stdin
// without destroying anything, so the child exits normally (code 0), not on an error.
describe("webStdio", () => {
  it("round-trips bytes through a child and closes cleanly", async () => {
    const child = spawn("cat", [], { stdio: ["pipe", "pipe", "inherit"] })
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    const io = WebStdio.webStdio(child.stdin, child.stdout)
    const writer = io.writable.getWriter()
    await writer.write(new TextEncoder().encode("hello "))
    await writer.write(new TextEncoder().encode("world\n"))
    await writer.close()
    let text = ""
    for await (const chunk of io.readable) text += new TextDecoder().decode(chunk)
    expect(text).toBe("hello world\n")
    expect(await exited).toBe(0)
  })

  it("cancelling the readable keeps draining, and writes after the peer closed reject", async () => {
    const child = spawn("bash", ["-c", "head -c 200000 /dev/zero; exit 0"], { stdio: ["pipe", "pipe", "inherit"] })
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    const io = WebStdio.webStdio(child.stdin, child.stdout)
    const reader = io.readable.getReader()
    await reader.read()
    await reader.cancel()
    expect(await exited).toBe(0)
    child.stdin.end()
    await expect(io.writable.getWriter().write(new Uint8Array([1]))).rejects.toThrow("stdin is closed")
  })
})
