// The Promise client: start `dsh sdk`, open a session, run a prompt while its text streams in.
// Run from the repository root: node --conditions=@dsh/source packages/sdk/examples/promise-client.ts
// (DSH_COMMAND picks the executable, default ./dsh; DSH_HOME where the session is stored.)
import { createSdkClient } from "@dsh/sdk"

const client = await createSdkClient({
  command: process.env.DSH_COMMAND ?? "./dsh",
  args: ["sdk", "--model", "scripted"],
  // The child's environment is scrubbed: pass what it needs explicitly.
  env: process.env.DSH_HOME === undefined ? {} : { DSH_HOME: process.env.DSH_HOME }
})
try {
  console.log(`connected to ${client.server.serverInfo.name} ${client.server.serverInfo.version}`)
  const session = await client.createSession({ cwd: process.cwd() })
  const result = await client.prompt({ sessionId: session.id, prompt: "hello" }, {
    onEvent: ({ event }) => {
      if (event.type === "text-delta") process.stdout.write(event.text)
    }
  })
  console.log(`\n[${result.status}, ${result.totalUsage.totalTokens} tokens, session ${session.id}]`)
} finally {
  await client.close()
}
