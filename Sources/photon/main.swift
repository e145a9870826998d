import Foundation
import PhotonCLI

// The `photon` executable: everything lives in PhotonCLI so it can be tested in-process.
let status = await PhotonCommandLine.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
