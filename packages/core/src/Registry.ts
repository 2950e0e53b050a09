import { Effect, Ref, Schema, Scope } from "effect"

/** A registry lookup or registration failed; `available` lists what the registry holds. */
export class RegistryError extends Schema.TaggedError<RegistryError>()("RegistryError", {
  reason: Schema.Literals(["DuplicateName", "NotFound"]),
  registry: Schema.String,
  name: Schema.String,
  available: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return this.reason === "DuplicateName"
      ? `${this.registry} "${this.name}" is already registered`
      : `unknown ${this.registry} "${this.name}"; available: ${this.available.join(", ") || "(none)"}`
  }
}

/**
 * A set of named values (providers, adapters, tools) owned by one service instance.
 * Registration is scoped: closing the scope unregisters, so a layer that registers
 * cleans up after itself and tests never leak state into each other.
 */
export interface NamedRegistry<A> {
  readonly register: (name: string, value: A) => Effect.Effect<void, RegistryError, Scope.Scope>
  /** Registers for as long as the registry lives (no scope needed). */
  readonly registerPermanent: (name: string, value: A) => Effect.Effect<void, RegistryError>
  readonly get: (name: string) => Effect.Effect<A, RegistryError>
  readonly getOption: (name: string) => Effect.Effect<A | undefined>
  readonly names: Effect.Effect<ReadonlyArray<string>>
  readonly entries: Effect.Effect<ReadonlyArray<readonly [string, A]>>
}

export const make = <A>(registry: string): Effect.Effect<NamedRegistry<A>> =>
  Effect.gen(function*() {
    const ref = yield* Ref.make<ReadonlyMap<string, A>>(new Map())
    const add = (name: string, value: A) =>
      Ref.modify(ref, (m): readonly [boolean, ReadonlyMap<string, A>] =>
        m.has(name) ? [false, m] : [true, new Map(m).set(name, value)]).pipe(
          Effect.flatMap((added) =>
            added ? Effect.void : Ref.get(ref).pipe(Effect.flatMap((m) =>
              Effect.fail(new RegistryError({ reason: "DuplicateName", registry, name, available: [...m.keys()] }))))
          )
        )
    const remove = (name: string, value: A) =>
      Ref.update(ref, (m) => {
        if (m.get(name) !== value) return m
        const next = new Map(m)
        next.delete(name)
        return next
      })
    const get = (name: string) =>
      Ref.get(ref).pipe(Effect.flatMap((m) => {
        const value = m.get(name)
        return value !== undefined || m.has(name)
          ? Effect.succeed(value as A)
          : Effect.fail(new RegistryError({ reason: "NotFound", registry, name, available: [...m.keys()].sort() }))
      }))
    return {
      register: (name, value) =>
        Effect.acquireRelease(add(name, value), () => remove(name, value)),
      registerPermanent: add,
      get,
      getOption: (name) => Ref.get(ref).pipe(Effect.map((m) => m.get(name))),
      names: Ref.get(ref).pipe(Effect.map((m) => [...m.keys()].sort())),
      entries: Ref.get(ref).pipe(Effect.map((m) => [...m.entries()]))
    } satisfies NamedRegistry<A>
  })
