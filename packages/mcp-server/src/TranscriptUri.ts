/** The URI of a child's transcript resource: `dsh://<sessionId>/<handle>/transcript` (the handle URI-encoded). */
export const transcriptUri = (sessionId: string, handle: string): string =>
  `dsh://${encodeURIComponent(sessionId)}/${encodeURIComponent(handle)}/transcript`

/** The session and handle of a transcript URI; undefined for any other URI. */
export const parseTranscriptUri = (uri: string): { readonly sessionId: string; readonly handle: string } | undefined => {
  const match = /^dsh:\/\/([^/]+)\/([^/]+)\/transcript$/.exec(uri)
  if (match === null) return undefined
  try {
    return { sessionId: decodeURIComponent(match[1]!), handle: decodeURIComponent(match[2]!) }
  } catch {
    return undefined
  }
}
