#!/usr/bin/env node
// The CLI's resident (`dist/warm-server.js`), started by a launcher that opted in: its spares run
// `warm-spare.js`, next to it.
import { Server } from "@dsh/cli-resident"
import { fileURLToPath } from "node:url"

Server.serveResident(fileURLToPath(new URL("./warm-spare.js", import.meta.url)))
