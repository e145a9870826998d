import PhotonConformance
import PhotonEmulatorPlugins
import PhotonEmulatorSupport
import PhotonPlugins
import Testing

/// Every registered brand against its emulated TV, every check of the conformance suite
/// (`PhotonConformance`). A new brand gets all of it by registering.
@Suite(.serialized) struct ConformanceTests {
    static let brands = BuiltInEmulators.all.filter { $0.emulator != nil }.map(\.adapter.id)

    @Test(arguments: brands, ConformanceCheck.allCases)
    func conformance(_ brand: String, _ check: ConformanceCheck) async throws {
        let plugin = try #require(BuiltInEmulators.all.first { $0.adapter.id == brand })
        try await check.run(plugin)
    }

    /// The same checks through the façade: the store, the session service, the router
    /// and the one capability check in front of the adapter (`DaemonConformanceTests`
    /// adds the daemon's socket API for one brand).
    @Test(arguments: brands, ConformanceCheck.allCases)
    func throughTheFacade(_ brand: String, _ check: ConformanceCheck) async throws {
        let plugin = try #require(BuiltInEmulators.all.first { $0.adapter.id == brand })
        try await check.run(plugin, route: .facade)
    }
}
