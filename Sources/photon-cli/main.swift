import Foundation
import PhotonCLI
import PhotonCore

// `photon-cli`, the whole `photon` tool (the `photon` front end runs it for everything it
// does not answer itself). Everything lives in PhotonCLI so it can be tested in-process.
PhaseTimer.mark("photon-cli main")
let arguments = Array(CommandLine.arguments.dropFirst())
// Before the first task starts (a thread of its own, a third of a millisecond).
PhotonCommandLine.startNetworkWarmUp(for: arguments)
let status = await PhotonCommandLine.run(arguments)
if let timings = PhaseTimer.report(environment: .process) {
    FileHandle.standardError.write(Data((timings + "\n").utf8))
}
PhotonCommandLine.exitProcess(status)
