import PhotonCore
import PhotonPlugins
import Testing

/// The registry finds a brand by the id its adapter gives directly (without building the
/// other brands' descriptors), which must be the descriptor's.
@Suite struct AdapterRegistryTests {
    @Test func everyBuiltInAdapterGivesItsDescriptorsID() throws {
        let registry = BuiltInPlugins.adapters
        #expect(Set(registry.ids).count == registry.adapters.count)
        for adapter in registry.adapters {
            #expect(adapter.id == adapter.descriptor.id)
            #expect(try registry.adapter(id: adapter.id).descriptor.id == adapter.id)
        }
        #expect(throws: PhotonError.self) { try registry.adapter(id: "nosuchbrand") }
    }
}
