import AndroidTVEmulator
import Foundation
import PhotonCore

// `photon-emulator BRAND [options]`: runs an emulated TV until killed, printing one JSON
// object per line for everything that happens (see design/cli.md). Emulated brands are
// listed here, in one place.

let usage = """
    Usage: photon-emulator androidtv [--host H] [--port P] [--pairing-port P] [--name N]
                                     [--mac M] [--state DIR] [--features MASK] [--ping-interval S]

    Runs an emulated TV on loopback (by default) until killed; prints JSON lines on stdout:
    ready, pairing_code, paired, client_connected, client_rejected, key, text, launch, voice.

    Example: photon-emulator androidtv --port 7466 --name "Living Room"
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("photon-emulator: error: \(message)\n\(usage)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
}
guard let brand = arguments.first else { fail("name a brand") }
arguments.removeFirst()
var options: [String: String] = [:]
while let option = arguments.first {
    arguments.removeFirst()
    guard option.hasPrefix("--"), let value = arguments.first else { fail("unexpected '\(option)'") }
    arguments.removeFirst()
    options[String(option.dropFirst(2))] = value
}

func port(_ name: String, in options: [String: String]) -> UInt16? {
    guard let text = options[name] else { return nil }
    guard let value = UInt16(text) else { fail("--\(name) takes a port number") }
    return value
}

let printLock = NSLock()
let printEvent: @Sendable (EmulatorEvent) -> Void = { event in
    printLock.withLock {
        FileHandle.standardOutput.write(Data((event.jsonLine + "\n").utf8))
    }
}

switch brand {
case "androidtv":
    var configuration = EmulatedAndroidTV.Configuration()
    for key in options.keys where !["host", "port", "pairing-port", "name", "mac", "state", "features", "ping-interval"].contains(key) {
        fail("unknown option --\(key)")
    }
    configuration.host = options["host"] ?? configuration.host
    configuration.remotePort = port("port", in: options) ?? configuration.remotePort
    configuration.pairingPort = port("pairing-port", in: options)
    configuration.name = options["name"] ?? configuration.name
    configuration.mac = options["mac"] ?? configuration.mac
    configuration.stateDirectory = options["state"].map { URL(fileURLWithPath: $0) }
    if let features = options["features"] {
        guard let mask = Int32(features) else { fail("--features takes a number (639 = everything)") }
        configuration.features = mask
    }
    if let interval = options["ping-interval"] {
        guard let seconds = Double(interval), seconds > 0 else { fail("--ping-interval takes seconds") }
        configuration.pingInterval = .milliseconds(Int64(seconds * 1000))
    }
    do {
        _ = try await EmulatedAndroidTV.start(configuration, onEvent: printEvent)
    } catch {
        let e = PhotonError.wrap(error)
        FileHandle.standardError.write(Data("photon-emulator: error: \(e.message)\n".utf8))
        exit(1)
    }
case "samsung":
    FileHandle.standardError.write(Data("photon-emulator: error: the Samsung emulator is not in this build yet (issue 4)\n".utf8))
    exit(6)
default:
    fail("unknown brand '\(brand)' (known: androidtv)")
}

// Run until killed.
while true { try await Task.sleep(for: .seconds(3600)) }
