import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Endpoint } from "../src/index.ts"

const options = Endpoint.conventional("open-router", { exampleModel: "some/model", defaultBaseUrl: "https://example.test/api/", path: "/chat/completions" })

describe("Endpoint.conventional", () => {
  it.effect("reads <PROVIDER>_API_KEY and <PROVIDER>_BASE_URL, `-` as `_`, and names them when missing", () =>
    Effect.gen(function*() {
      const viaEnv = yield* Endpoint.resolveEndpoint(" m ", { env: { OPEN_ROUTER_API_KEY: "k", OPEN_ROUTER_BASE_URL: "http://127.0.0.1:9/v1/" } }, options)
      assert.deepStrictEqual(viaEnv, { model: "m", apiKey: "k", url: "http://127.0.0.1:9/v1/chat/completions" })
      const byDefault = yield* Endpoint.resolveEndpoint("m", { apiKey: "k", env: {} }, options)
      assert.strictEqual(byDefault.url, "https://example.test/api/chat/completions")
      const missing = yield* Effect.flip(Endpoint.resolveEndpoint("m", { env: {} }, options))
      assert.strictEqual(missing.detail, "OPEN_ROUTER_API_KEY is not set")
      const unnamed = yield* Effect.flip(Endpoint.resolveEndpoint(" ", { apiKey: "k" }, options))
      assert.strictEqual(unnamed.detail, "no model name: use a spec such as open-router:some/model")
    }))
})
