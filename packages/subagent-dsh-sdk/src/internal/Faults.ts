import type { SdkError } from "@dsh/sdk"
import type { SubprocessError } from "@dsh/subprocess"
import type { ChildSetupError } from "./ChildConfig.ts"

/** What went wrong with an SDK child, worded for the parent (and its model). */
export const describeFault = (error: SdkError.SdkError | SubprocessError.SubprocessError | ChildSetupError): string => {
  switch (error._tag) {
    case "SubprocessError":
      return `could not start the dsh sdk child: ${error.message}`
    case "ChildSetupError":
      return error.message
    case "SdkError":
      switch (error.reason) {
        case "ConnectionClosed":
          return `the dsh sdk child ended unexpectedly: ${error.message}`
        case "ProtocolViolation":
          return `the dsh sdk child broke the protocol and was stopped: ${error.message}`
        case "FrameTooLarge":
          return `the dsh sdk child sent an oversized frame and was stopped: ${error.message}`
        case "Timeout":
          return `the dsh sdk child did not become ready: ${error.message}`
        case "Remote":
          return `the dsh sdk child refused: ${error.message}`
      }
  }
}
