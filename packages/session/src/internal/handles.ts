import type { SessionHandle } from "../SessionStore.ts"

/**
 * The handles a store has handed out, one per session id: every user of a session shares its
 * handle (its transcript numbering, its lease), and racing `open`s agree on the first one made.
 */
export const makeHandleCache = () => {
  const handles = new Map<string, SessionHandle>()
  return {
    get: (id: string): SessionHandle | undefined => handles.get(id),
    /** Registers a handle unless one exists for its id; returns the one to use. */
    remember: (handle: SessionHandle): SessionHandle => {
      const first = handles.get(handle.id) ?? handle
      handles.set(handle.id, first)
      return first
    },
    forget: (id: string): void => void handles.delete(id)
  }
}
