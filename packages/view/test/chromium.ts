// Headless Chromium for the report tests (Debian's `chromium`). Absent: the caller skips with one line.
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The Chromium binary, or undefined when this machine has none. */
export const chromiumPath = (): string | undefined => {
  for (const candidate of ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]) if (existsSync(candidate)) return candidate
  const which = spawnSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], { encoding: "utf8" })
  const found = which.stdout.trim()
  return found === "" ? undefined : found
}

/** Runs headless Chromium on `url` with `args` (its own profile, no sandbox: tests run as root). */
export const headless = (chromium: string, url: string, args: ReadonlyArray<string>) => {
  const profile = mkdtempSync(join(tmpdir(), "dsh-chromium-"))
  const r = spawnSync(chromium, [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
    `--user-data-dir=${profile}`, ...args, url
  ], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 90_000 })
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" }
}
