import { describe, expect, it } from "vitest"
import { FakeSseServer } from "../src/testing.ts"

const wire: FakeSseServer.FakeWire = {
  basePath: "/v1",
  endpoint: "/v1/sse",
  errorBody: (status, message) => ({ error: { status, message } }),
  render: (reply) => ({ head: reply.text === undefined ? [] : [FakeSseServer.sseFrame(reply.text)], tail: [FakeSseServer.sseFrame("[DONE]")] })
}

const post = (url: string, body: unknown = {}, signal?: AbortSignal) =>
  fetch(`${url}/sse`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: signal ?? null })

describe("startFakeSseServer", () => {
  it("answers in order, records requests, and reports a clear 500 past the script", async () => {
    const server = await FakeSseServer.startFakeSseServer(wire, { replies: [{ text: "one", delayMs: 5 }] })
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
      const first = await post(server.url, { n: 1 })
      expect(first.headers.get("content-type")).toBe("text/event-stream")
      expect(await first.text()).toBe("data: one\n\ndata: [DONE]\n\n")
      const second = await post(server.url, { n: 2 })
      expect(second.status).toBe(500)
      expect(await second.json()).toEqual({ error: { status: 500, message: "fake server: no scripted reply for request #2 (1 scripted)" } })
      expect(server.requests.map((r) => r.body)).toEqual([{ n: 1 }, { n: 2 }])
    } finally {
      await server.close()
    }
  })

  it("passes request and index to respond, and turns a throwing respond into a 500", async () => {
    const server = await FakeSseServer.startFakeSseServer(wire, {
      respond: (request, index) => {
        if (index === 1) throw new Error("script bug")
        return { text: `#${index} ${JSON.stringify(request.body)}` }
      }
    })
    try {
      expect(await (await post(server.url, { a: 1 })).text()).toBe("data: #0 {\"a\":1}\n\ndata: [DONE]\n\n")
      const failed = await post(server.url)
      expect(failed.status).toBe(500)
      expect(await failed.text()).toContain("script bug")
    } finally {
      await server.close()
    }
  })

  it("sends a scripted error status and body, and 404s other routes without recording them", async () => {
    const server = await FakeSseServer.startFakeSseServer(wire, { replies: [{ status: 418, errorBody: "short and stout" }] })
    try {
      const teapot = await post(server.url)
      expect(teapot.status).toBe(418)
      expect(await teapot.text()).toBe("short and stout")
      const lost = await fetch(`${server.url}/elsewhere`, { method: "POST", body: "{}" })
      expect(lost.status).toBe(404)
      expect(server.requests.length).toBe(1)
    } finally {
      await server.close()
    }
  })

  it("counts a client abort of a hanging reply", async () => {
    const server = await FakeSseServer.startFakeSseServer(wire, { replies: [{ hang: true }] })
    try {
      const controller = new AbortController()
      const pending = post(server.url, {}, controller.signal).catch((e: unknown) => e)
      while (server.requests.length === 0) await new Promise((r) => setImmediate(r))
      controller.abort()
      await pending
      await server.waitForAborts(1)
      expect(server.aborted).toBe(1)
    } finally {
      await server.close()
    }
  })

  it("close() ends hanging connections and is not counted as an abort", async () => {
    const server = await FakeSseServer.startFakeSseServer(wire, {
      respond: (request) => (request.body as { kind: string }).kind === "headless" ? { hang: true } : { text: "streamed", hang: true }
    })
    const headless = post(server.url, { kind: "headless" }).catch((e: unknown) => e)
    const open = await post(server.url, { kind: "open" })
    const reader = open.body!.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value)).toBe("data: streamed\n\n")
    await server.close()
    expect(await headless).toBeInstanceOf(Error)
    await expect(reader.read()).rejects.toBeDefined()
    expect(server.aborted).toBe(0)
  })

  it("drops a connection on request, without counting it as an abort", async () => {
    const server = await FakeSseServer.startFakeSseServer(wire, { replies: [{ disconnect: true }, { text: "next" }] })
    try {
      const dropped = await post(server.url).then(() => undefined, (e: unknown) => e)
      expect(dropped, "a dropped connection rejects the client's fetch").toBeInstanceOf(TypeError)
      expect(await (await post(server.url)).text()).toBe("data: next\n\ndata: [DONE]\n\n")
      expect(server.requests).toHaveLength(2)
      expect(server.aborted, "the fake's own disconnect is not a client abort").toBe(0)
    } finally {
      await server.close()
    }
  })

  it("splits arguments into exactly the asked number of parts", () => {
    expect(FakeSseServer.splitInParts("{\"a\":1}", 3).join("")).toBe("{\"a\":1}")
    expect(FakeSseServer.splitInParts("{}", 3)).toEqual(["{", "}", ""])
    expect(FakeSseServer.splitInParts("", 2)).toEqual(["", ""])
  })
})
