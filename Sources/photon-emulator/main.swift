import AndroidTVEmulator
import PhotonDiscovery
import SamsungTVEmulator
import Foundation
import PhotonEmulatorSupport
import PhotonCore

// `photon-emulator BRAND [options]`: runs an emulated TV until killed, printing one JSON
// object per line for everything that happens (see design/cli.md). Emulated brands are
// listed here, in one place.

let usage = """
    Usage: photon-emulator androidtv [--host H] [--port P] [--pairing-port P] [--name N]
                                     [--mac M] [--state DIR] [--features MASK] [--ping-interval S] [--publish]
           photon-emulator samsung   [--host H] [--port P] [--rest-port P] [--name N] [--mac M]
                                     [--state DIR] [--accept auto|deny|timeout] [--accept-delay S]
                                     [--token-auth true|false] [--power on|standby] [--publish]

    --publish announces the TV through avahi-daemon (mDNS).
    Runs an emulated TV on loopback (by default) until killed; prints JSON lines on stdout:
    ready, pairing_code, prompt, paired, client_connected, client_rejected, key, text, launch, voice.
    Samsung: --port is the WSS port (default 8002), --rest-port the REST and plain WebSocket
    port (default 8001); --accept simulates the user's answer to the on-screen prompt.

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
    if option == "--publish" {
        options["publish"] = "true"
        continue
    }
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

nonisolated(unsafe) var publisher: AvahiPublisher?
switch brand {
case "androidtv":
    var configuration = EmulatedAndroidTV.Configuration()
    for key in options.keys where !["host", "port", "pairing-port", "name", "mac", "state", "features", "ping-interval", "publish"].contains(key) {
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
        configuration.pingInterval = .clampedSeconds(seconds, maximum: 86_400)
    }
    do {
        let tv = try await EmulatedAndroidTV.start(configuration, onEvent: printEvent)
        if options["publish"] == "true" {
            publisher = try AvahiPublisher(
                name: configuration.name, type: "_androidtvremote2._tcp", port: tv.remotePort, txt: ["bt": configuration.mac])
            printEvent(EmulatorEvent("published", [("service", .string("_androidtvremote2._tcp"))]))
        }
    } catch {
        let e = PhotonError.wrap(error)
        FileHandle.standardError.write(Data("photon-emulator: error: \(e.message)\n".utf8))
        exit(1)
    }
case "samsung":
    var configuration = EmulatedSamsungTV.Configuration()
    let known = ["host", "port", "rest-port", "name", "mac", "state", "accept", "accept-delay", "token-auth", "power", "ping-interval", "publish"]
    for key in options.keys where !known.contains(key) { fail("unknown option --\(key)") }
    configuration.host = options["host"] ?? configuration.host
    configuration.port = port("port", in: options) ?? configuration.port
    configuration.restPort = port("rest-port", in: options) ?? configuration.restPort
    configuration.name = options["name"] ?? configuration.name
    configuration.mac = options["mac"] ?? configuration.mac
    configuration.stateDirectory = options["state"].map { URL(fileURLWithPath: $0) }
    if let accept = options["accept"] {
        guard let value = EmulatedSamsungTV.Accept(rawValue: accept) else { fail("--accept takes auto, deny or timeout") }
        configuration.accept = value
    }
    if let delay = options["accept-delay"] {
        guard let seconds = Double(delay), seconds >= 0 else { fail("--accept-delay takes seconds") }
        configuration.acceptDelay = .clampedSeconds(seconds, maximum: 86_400)
    }
    if let interval = options["ping-interval"] {
        guard let seconds = Double(interval), seconds > 0 else { fail("--ping-interval takes seconds") }
        configuration.pingInterval = .clampedSeconds(seconds, maximum: 86_400)
    }
    if let auth = options["token-auth"] { configuration.tokenAuthSupport = auth != "false" }
    if let power = options["power"] { configuration.powerState = power }
    do {
        let tv = try await EmulatedSamsungTV.start(configuration, onEvent: printEvent)
        if options["publish"] == "true" {
            publisher = try AvahiPublisher(
                name: configuration.name, type: "_samsungmsf._tcp", port: tv.restPort,
                txt: ["id": "uuid:0b7a3c1e-photon-emulated", "md": configuration.modelName, "fn": configuration.name,
                      "se": "http://\(configuration.host):\(tv.restPort)/api/v2/", "wss": String(tv.port)])
            printEvent(EmulatorEvent("published", [("service", .string("_samsungmsf._tcp"))]))
        }
    } catch {
        let e = PhotonError.wrap(error)
        FileHandle.standardError.write(Data("photon-emulator: error: \(e.message)\n".utf8))
        exit(1)
    }
default:
    fail("unknown brand '\(brand)' (known: androidtv, samsung)")
}

// Run until killed.
while true {
    try await Task.sleep(for: .seconds(3600))
    withExtendedLifetime(publisher) {}
}
