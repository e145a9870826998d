import Foundation
import PhotonConformance
import PhotonCore
import PhotonEmulatorPlugins
import PhotonKit
import PhotonPlugins
import PhotonService
import Testing

/// The conformance suite through a running daemon: the socket API, the daemon's warm
/// sessions and its router in front of the adapter. Android TV (TLS, a client
/// certificate the TV remembers, pairing with a code) covers the most of the core; the
/// other brands run through the façade in `ConformanceTests`.
@Suite(.serialized) struct DaemonConformanceTests {
    @Test(arguments: ConformanceCheck.allCases)
    func throughTheDaemon(_ check: ConformanceCheck) async throws {
        let plugin = try #require(BuiltInEmulators.all.first { $0.adapter.id == "androidtv" })
        try await check.run(plugin, route: Self.daemon)
    }

    /// A `photon serve` of the harness's home in this process, and its client; closing
    /// the client stops the daemon.
    static let daemon = ConformanceRoute.control(name: "daemon") { paths, adapters, _ in
        // The daemon's router reads envelopes its clients stamp with the real time.
        let photon = try Photon(
            adapters: adapters, paths: paths, timeout: .seconds(5), policy: .keepWarm(ReconnectBackoff()), cachesStore: true)
        let server = ServiceServer(photon: photon, log: ServiceLog(notice: { _ in }, debug: .silent))
        try server.start()
        let running = Task { await server.run() }
        guard let control = try await DaemonControl.ifRunning(store: photon.store, timeout: .seconds(5)) else {
            await server.stop()
            throw PhotonError(.unreachable, "the daemon started in this test does not answer")
        }
        return ServedControl(control: control, server: server, running: running)
    }
}

/// A daemon client that stops its daemon when closed.
struct ServedControl: TVControl {
    let control: DaemonControl
    let server: ServiceServer
    let running: Task<Void, Never>
    var route: String { control.route }
    func send(_ commands: [RemoteCommand], to tv: String, delay: Duration, wake: WakeRequest?, lifetime: Duration) async throws -> Bool {
        try await control.send(commands, to: tv, delay: delay, wake: wake, lifetime: lifetime)
    }
    func status(_ tv: String, settle: Duration) async throws -> [TVEvent] { try await control.status(tv, settle: settle) }
    func items(_ kind: TVListKind, of tv: String) async throws -> [TVListItem] { try await control.items(kind, of: tv) }
    func runMacro(_ macro: Macro, on tv: String, lifetime: Duration, wake: WakeRequest, catalog: [String: [String]]) async throws
        -> [MacroStepResult]
    { try await control.runMacro(macro, on: tv, lifetime: lifetime, wake: wake, catalog: catalog) }
    func open(_ tv: String, source: CommandSource) async throws -> any TVControlSession { try await control.open(tv, source: source) }
    func storeChanged() async { await control.storeChanged() }
    func connectionStates() async -> [String: String]? { await control.connectionStates() }
    func close() async {
        await control.close()
        await server.stop()
        await running.value
    }
}
