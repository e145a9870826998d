import Foundation
import PhotonArguments
import PhotonCore

/// An emulated TV a brand registers beside its adapter, so `photon-emulator`, `photon
/// demo` and the conformance tests can start one without naming the brand. It speaks the
/// brand's real protocol on loopback and reports what it receives as `EmulatorEvent`s.
public protocol TVEmulator: Sendable {
    /// The brand id, the same as its adapter's.
    var brand: String { get }
    /// One line for `photon-emulator --help`.
    var summary: String { get }
    /// Its own options (ports, simulated behaviour), typed. `photon-emulator` adds the
    /// common ones: `--host`, `--name`, `--mac`, `--state`, `--publish`.
    var options: [OptionSpec] { get }
    /// Which of `options` set which named port (`port` → `remote`), so a caller can ask
    /// for free ports.
    var portOptions: [String: String] { get }
    /// Starts the TV. Ports given as 0 are chosen free.
    func start(_ settings: EmulatorSettings, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) async throws
        -> any RunningEmulator
}

/// What an emulator is started with: the common settings and its own options, whose
/// values `photon-emulator`'s parser has already checked.
public struct EmulatorSettings: Sendable {
    public var host = "127.0.0.1"
    public var name: String?
    public var mac: String?
    public var stateDirectory: URL?
    /// The emulator's own options by name, as text.
    public var values: [String: String]

    public init(host: String = "127.0.0.1", name: String? = nil, mac: String? = nil, stateDirectory: URL? = nil, values: [String: String] = [:]) {
        self.host = host
        self.name = name
        self.mac = mac
        self.stateDirectory = stateDirectory
        self.values = values
    }

    public func text(_ name: String) -> String? { values[name] }
    public func port(_ name: String) -> UInt16? { values[name].flatMap { UInt16($0) } }
    public func integer(_ name: String) -> Int? { values[name].flatMap { Int($0) } }
    public func seconds(_ name: String) -> Duration? { values[name].flatMap(Double.init).map { .clampedSeconds($0, maximum: 86_400) } }
    public func flag(_ name: String) -> Bool { values[name] != nil }

    /// Settings that put every port of `emulator` on a free one.
    public static func ephemeral(for emulator: any TVEmulator, name: String? = nil) -> EmulatorSettings {
        EmulatorSettings(name: name, values: Dictionary(uniqueKeysWithValues: emulator.portOptions.keys.map { ($0, "0") }))
    }
}

/// What `--publish` announces for a running emulator over mDNS.
public struct EmulatorAnnouncement: Sendable {
    public var serviceType: String
    public var port: UInt16
    public var txt: [String: String]
    /// Services the real TV announces beside its main one (Apple's `_device-info._tcp`
    /// with the model), answered to unicast DNS-SD queries too.
    public var companions: [EmulatorAnnouncement]
    public init(serviceType: String, port: UInt16, txt: [String: String], companions: [EmulatorAnnouncement] = []) {
        self.serviceType = serviceType
        self.port = port
        self.txt = txt
        self.companions = companions
    }
}

/// A running emulated TV.
public protocol RunningEmulator: AnyObject, Sendable {
    /// Its ports, named as its adapter names them (`remote`, `pairing`, `wss`, `rest`).
    var ports: [String: UInt16] { get }
    /// The certificate a TLS brand presents (nil for brands without TLS).
    var certificateFingerprint: CertificateFingerprint? { get }
    /// The mDNS service `--publish` announces.
    var announcement: EmulatorAnnouncement { get }
    /// How the demo and the conformance suite answer its pairing: the code it shows is in
    /// the event named here (`pairing_code`, field `code`), or nil when the TV is accepted
    /// without a code.
    var pairingCodeEvent: String? { get }
    func stop() async

    // Hooks for the conformance suite: what every emulated TV can be made to do.

    /// A new certificate, as after a factory reset (or an impostor): paired clients must
    /// refuse it. Brands without TLS throw `unsupported`.
    func rotateCertificate() async throws
    /// Forgets every paired client, so the next connection is refused.
    func forgetClients() async
    /// Sends every connected client a message its protocol cannot parse.
    func sendMalformedMessage() async
    /// Sends every connected client a message over any size limit.
    func sendOversizeMessage() async
    /// Drops every connection without a goodbye.
    func dropConnections() async
}

/// One brand: its adapter and, where it has one, its emulated TV. The registration list
/// (`BuiltInPlugins`) holds one of these per brand.
public struct BrandPlugin: Sendable {
    public let adapter: any TVAdapter
    public let emulator: (any TVEmulator)?
    public init(_ adapter: any TVAdapter, emulator: (any TVEmulator)? = nil) {
        self.adapter = adapter
        self.emulator = emulator
    }
}
