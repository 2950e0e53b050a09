import { Result } from "effect"

/**
 * How an operator names a child: its handle (`explore-1`) or `#N`, its 1-based place in
 * `subagents list` (children in the order they were created, which never changes).
 */
export const resolveChildRef = <C extends { readonly handle: string }>(
  children: ReadonlyArray<C>,
  ref: string
): Result.Result<C, string> => {
  const index = /^#(\d+)$/.exec(ref.trim())
  if (index !== null) {
    const n = Number(index[1])
    const found = n >= 1 ? children[n - 1] : undefined
    return found === undefined
      ? Result.fail(`no subagent #${index[1]}: ${children.length === 0 ? "there are none" : `#1 to #${children.length} exist`}`)
      : Result.succeed(found)
  }
  const found = children.find((c) => c.handle === ref)
  return found === undefined
    ? Result.fail(`unknown subagent "${ref}"; known: ${children.map((c, i) => `#${i + 1} ${c.handle}`).join(", ") || "(none)"}`)
    : Result.succeed(found)
}
