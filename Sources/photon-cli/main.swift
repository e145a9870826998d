import CProcessStart
import Foundation
import PhotonCLI
import PhotonCore

// `photon-cli`, the whole `photon` tool (the `photon` front end runs it for everything it
// does not answer itself). Everything lives in PhotonCLI so it can be tested in-process.
PhaseTimer.mark("photon-cli main")
let arguments = Array(CommandLine.arguments.dropFirst())
if PhotonCommandLine.connectsDirectly(arguments) {
    // .bss mapped writable while this is the only thread (0.2 ms): the warm-up below runs
    // another, beside which each page first written would flush its core's TLB. A command
    // without the warm-up has no such second thread and skips it.
    photon_prefault_zeroed_data()
    // Before the first task starts (a thread of its own, a third of a millisecond).
    PhotonCommandLine.startNetworkWarmUp(for: arguments)
}

// The command runs as a task and ends the process itself; the main thread only waits.
// No `await` up here: it would make this an async main, whose main thread hands the main
// queue over by leaving through `pthread_exit`, and glibc loads libgcc_s to unwind it
// (its CPU probe included) before the first task may run — about 0.2 ms of every command.
// Nothing in photon-cli runs on the main actor or the main queue.
Task.detached { [arguments] in
    let status = await PhotonCommandLine.run(arguments)
    if let timings = PhaseTimer.report(environment: .process) {
        FileHandle.standardError.write(Data((timings + "\n").utf8))
    }
    PhotonCommandLine.exitProcess(status)
}
while true { pause() }
