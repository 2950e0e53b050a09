import { PgClient } from "@effect/sql-pg"
import { afterAll, assert, describe, it } from "vitest"
import { Effect, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Postgres } from "../src/index.ts"
import { locateBinaries } from "../src/internal/binaries.ts"
import { startServer } from "../src/internal/server.ts"

const pg = await Postgres.postgresForTests()
afterAll(() => pg?.stop())

const query = (url: string, text: string) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const sql = yield* PgClient.makeClient({ url: Redacted.make(url) })
    return yield* sql.unsafe<Record<string, unknown>>(text)
  })).pipe(Effect.provide(Reactivity.layer)))

describe.skipIf(pg === undefined)("startPostgres", () => {
  it("serves PostgreSQL 18 on 127.0.0.1 with a password, and creates databases and schemas", async () => {
    const server = pg!
    assert.match(server.version, /PostgreSQL\) 18\./)
    assert.strictEqual(server.host, "127.0.0.1")
    const rows = await query(server.url, "SELECT current_user AS user, version() AS version")
    assert.strictEqual(rows[0]?.user, "postgres")
    const a = await server.createDatabase()
    const b = await server.createDatabase("named_one")
    assert.notStrictEqual(a, b)
    assert.match(b, /\/named_one$/)
    assert.deepStrictEqual((await query(b, "SELECT current_database() AS db"))[0], { db: "named_one" })
    const schema = await server.createSchema("a_schema")
    assert.deepStrictEqual((await query(schema, "SELECT current_schema() AS schema"))[0], { schema: "a_schema" })
    const wrong = server.url.replace(`:${server.password}@`, ":wrong@")
    const refused = await query(wrong, "SELECT 1").then(() => "connected", (e: Error) => e.message)
    assert.notStrictEqual(refused, "connected", "a wrong password is refused")
  })

  it("stops and removes its directory", async () => {
    const other = (await Postgres.postgresForTests())!
    const dir = (await query(other.url, "SHOW data_directory"))[0]?.data_directory as string
    assert.isTrue(statSync(dir).isDirectory())
    await other.stop()
    assert.throws(() => statSync(dir))
    const after = await query(other.url, "SELECT 1").then(() => "connected", (e: Error) => e.message)
    assert.notStrictEqual(after, "connected", "nothing listens on the port after stop")
  })
})

describe.skipIf(pg === undefined || process.getuid?.() !== 0)("as root", () => {
  it("runs binaries that sit under a 0700 directory from a mirror the service user can reach, and starts", async () => {
    const hidden = mkdtempSync(join(tmpdir(), "dsh-hidden-"))
    try {
      chmodSync(hidden, 0o700)
      const { postgres } = await locateBinaries()
      const native = join(dirname(postgres), "..")
      execFileSync("cp", ["-al", native, join(hidden, "native")])
      const found = await locateBinaries(join(hidden, "native"))
      assert.notStrictEqual(found.runAs, undefined, "as root, PostgreSQL runs as another user")
      assert.isFalse(found.postgres.startsWith(hidden), "the binaries run from elsewhere")
      assert.include(found.note ?? "", "not reachable")
      const r = spawnSync(found.postgres, ["--version"], { uid: found.runAs!.uid, gid: found.runAs!.gid, encoding: "utf8" })
      assert.strictEqual(r.status, 0, r.stderr)
      const server = await startServer(found)
      await server.stop()
    } finally {
      rmSync(hidden, { recursive: true, force: true })
    }
  })
})
