import { SessionStore } from "@dsh/session"
import { Effect, Ref } from "effect"
import type { SubagentLimitsShape } from "../Limits.ts"
import { SubagentError } from "../SubagentError.ts"
import type { DescriptorBook } from "./descriptors.ts"

const HANDLES_KEY = "handles"
const CHILD_COUNT_KEY = "childCount"

const asCounts = (value: unknown): Record<string, number> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).filter((e): e is [string, number] => typeof e[1] === "number"))
    : {}

const handlePrefix = (type: string): string =>
  type.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "agent"

/**
 * A tree's handle numbering and `max_children` count: this process's own, or, with session
 * admission, the session state's (shared by every process admitting children to it).
 */
export const makeChildCounters = (
  session: SessionStore.SessionHandle | undefined,
  sessionAdmission: boolean,
  descriptors: DescriptorBook,
  limits: SubagentLimitsShape
) => {
  const shared = sessionAdmission ? session : undefined
  // Numbering continues after a restart: from the highest number already persisted, counted
  // when first needed (a tree that hosts one run for another owner mostly never needs it).
  let numbered: Map<string, number> | undefined
  const counters = (): Map<string, number> => {
    if (numbered !== undefined) return numbered
    numbered = new Map()
    for (const d of descriptors.all()) {
      const m = /^(.*)-(\d+)$/.exec(d.handle)
      if (m?.[1] !== undefined) numbered.set(m[1], Math.max(numbered.get(m[1]) ?? 0, Number(m[2])))
    }
    return numbered
  }
  /** This process's count of the session's children (undefined: not counted yet). */
  const children = Ref.makeUnsafe<number | undefined>(undefined)
  const full = (count: number) =>
    new SubagentError({
      reason: "ChildLimit",
      message: `this session already has ${count} children, the limit (${limits.maxChildren}); continue an existing child instead`
    })

  const allocateHandle = (type: string): Effect.Effect<string> => {
    const prefix = handlePrefix(type)
    if (shared === undefined) {
      return Effect.sync(() => {
        const n = (counters().get(prefix) ?? 0) + 1
        counters().set(prefix, n)
        return `${prefix}-${n}`
      })
    }
    return SessionStore.modifyState(shared, (s) => {
      const handles = asCounts(s[HANDLES_KEY])
      const n = Math.max(handles[prefix] ?? 0, counters().get(prefix) ?? 0) + 1
      return [n, { ...s, [HANDLES_KEY]: { ...handles, [prefix]: n } }] as const
    }).pipe(
      Effect.tap((n) => Effect.sync(() => counters().set(prefix, Math.max(counters().get(prefix) ?? 0, n)))),
      Effect.map((n) => `${prefix}-${n}`),
      // The store is unreachable: a handle unique to this process still works (the run records its own failure).
      Effect.orElseSucceed(() => `${prefix}-${process.pid}-${(counters().get(prefix) ?? 0) + 1}`)
    )
  }

  const reserveShared = (session: SessionStore.SessionHandle) =>
    SessionStore.modifyState(session, (s) => {
      const count = typeof s[CHILD_COUNT_KEY] === "number" ? s[CHILD_COUNT_KEY] : descriptors.all().length
      return count < limits.maxChildren ? [undefined, { ...s, [CHILD_COUNT_KEY]: count + 1 }] as const : [count, s] as const
    }).pipe(
      Effect.mapError((e) => new SubagentError({ reason: "InvalidRequest", message: `cannot admit a child: ${e.message}` })),
      // What the update gives back: nothing when admitted, the count that was full when refused.
      Effect.flatMap((refused) => (refused === undefined ? Effect.void : Effect.fail(full(refused))))
    )

  const reserveChild: Effect.Effect<void, SubagentError> = shared !== undefined
    ? reserveShared(shared)
    : Effect.flatten(Ref.modify(children, (counted): readonly [Effect.Effect<void, SubagentError>, number] => {
      const n = counted ?? descriptors.all().length
      return n >= limits.maxChildren ? [Effect.fail(full(n)), n] : [Effect.void, n + 1]
    }))

  const childCapacity = Effect.map(Ref.get(children), (n) => Math.max(0, limits.maxChildren - (n ?? descriptors.all().length)))
  return { allocateHandle, reserveChild, childCapacity }
}
