import Foundation
import PhotonCLI

// `photon-cli`, the whole `photon` tool (the `photon` front end runs it for everything it
// does not answer itself). Everything lives in PhotonCLI so it can be tested in-process.
let status = await PhotonCommandLine.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
