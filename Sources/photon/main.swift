import Glibc
import PhotonWire

// `photon`: answers the commonest commands — one key, text, an app, volume — through a
// running `photon serve` in about a millisecond of its own, without loading the TLS,
// discovery and brand code a direct connection needs. Everything else, and every case
// where the daemon is not usable, runs `photon-cli` (installed beside it) with the same
// arguments, so the command-line contract has one owner.

let startedAt = DaemonConnection.monotonicTime()
let arguments = Array(CommandLine.arguments.dropFirst())
let environment: (String) -> String? = { name in getenv(name).map { String(cString: $0) } }

// Shell completion asks for the paired TVs' nicknames: the metadata file, never secrets.
if arguments.first == CompletionNames.command {
    if let directory = CompletionNames.configDirectory(home: CompletionNames.home(in: arguments), environment: environment),
        let file = fopen(directory + "/devices.json", "r")
    {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count < 4 << 20 {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        fclose(file)
        for name in CompletionNames.nicknames(fromDevicesFile: bytes) { print(name) }
    }
    exit(0)
}

if let fast = FastCommand(arguments, environment: environment), let socket = fast.socketPath(environment: environment) {
    let timings = environment("PHOTON_TIMINGS").map { !$0.isEmpty && $0 != "0" } == true ? FrontEndTimings(startedAt: startedAt) : nil
    if case .finished(let status) = FrontEnd.run(fast, socket: socket, timings: timings) {
        if let timings {
            timings.mark("exit")
            writeStandardError(timings.line + "\n")
        }
        exit(status)
    }
    // No daemon socket at all: photon-cli need not look again (one decision per command).
    var info = stat()
    if lstat(socket, &info) != 0 { setenv("PHOTON_NO_DAEMON", "1", 1) }
}

// Hand on: exec photon-cli from this executable's directory, keeping argv[0].
var pathBuffer = [CChar](repeating: 0, count: 4096)
let length = readlink("/proc/self/exe", &pathBuffer, pathBuffer.count - 1)
let directory = length > 0 ? DaemonConnection.parent(of: String(cString: Array(pathBuffer[..<length]) + [0])) : "."
let cli = directory + "/photon-cli"
if let timings = getenv("PHOTON_TIMINGS"), timings.pointee != 0 {
    setenv("PHOTON_TIMINGS_FRONT_END", "\(startedAt),\(DaemonConnection.monotonicTime())", 1)
}
var argv: [UnsafeMutablePointer<CChar>?] = ([CommandLine.arguments.first ?? "photon"] + arguments).map { strdup($0) } + [nil]
execv(cli, &argv)
writeStandardError("photon: error: cannot run \(cli): \(String(cString: strerror(errno)))\n  hint: install photon-cli beside photon\n")
exit(1)
