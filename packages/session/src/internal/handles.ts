import { Effect } from "effect"
import type { SessionHandle } from "../SessionStore.ts"

/**
 * The handles a store has handed out, one per session id: every user of a session shares its
 * handle (its transcript numbering, its lease), and racing `open`s agree on the first one made.
 *
 * `release` lets a settled session go (a long-lived host would otherwise keep every session it
 * ever ran): a handle registered with `letGo` runs it — which refuses while the session is in
 * use here (its lease held) and otherwise closes what the handle keeps open — and is then
 * forgotten, so the next `open` reads the session back from the store.
 */
export const makeHandleCache = () => {
  const handles = new Map<string, { readonly handle: SessionHandle; readonly letGo: Effect.Effect<boolean> | undefined }>()
  return {
    get: (id: string): SessionHandle | undefined => handles.get(id)?.handle,
    /** Registers a handle unless one exists for its id; returns the one to use. */
    remember: (handle: SessionHandle, letGo?: Effect.Effect<boolean>): SessionHandle => {
      const first = handles.get(handle.id)
      if (first !== undefined) return first.handle
      handles.set(handle.id, { handle, letGo })
      return handle
    },
    forget: (id: string): void => void handles.delete(id),
    /** Forgets the session's handle unless it is in use; a handle without `letGo` is kept. */
    release: (id: string): Effect.Effect<void> =>
      Effect.suspend(() => {
        const entry = handles.get(id)
        if (entry?.letGo === undefined) return Effect.void
        return Effect.map(entry.letGo, (gone) => {
          if (gone && handles.get(id) === entry) handles.delete(id)
        })
      })
  }
}
