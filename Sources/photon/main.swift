import Glibc

// `photon`: answers the commonest commands — one key, text, an app, volume — through a
// running `photon serve` in about a millisecond of its own, without loading the TLS,
// discovery and brand code a direct connection needs. Everything else, and every case
// where the daemon is not usable, runs `photon-cli` (installed beside it) with the same
// arguments, so the command-line contract has one owner.

let arguments = Array(CommandLine.arguments.dropFirst())
let environment: (String) -> String? = { name in getenv(name).map { String(cString: $0) } }

if let fast = FastCommand(arguments, environment: environment), let socket = fast.socketPath(environment: environment),
    case .finished(let status) = FrontEnd.run(fast, socket: socket)
{
    exit(status)
}

// Hand on: exec photon-cli from this executable's directory, keeping argv[0].
var pathBuffer = [CChar](repeating: 0, count: 4096)
let length = readlink("/proc/self/exe", &pathBuffer, pathBuffer.count - 1)
let directory = length > 0 ? DaemonLine.parent(of: String(cString: Array(pathBuffer[..<length]) + [0])) : "."
let cli = directory + "/photon-cli"
var argv: [UnsafeMutablePointer<CChar>?] = ([CommandLine.arguments.first ?? "photon"] + arguments).map { strdup($0) } + [nil]
execv(cli, &argv)
writeStandardError("photon: error: cannot run \(cli): \(String(cString: strerror(errno)))\n  hint: install photon-cli beside photon\n")
exit(1)
