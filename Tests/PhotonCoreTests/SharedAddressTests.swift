import PhotonCore
import Testing

/// Several paired TVs at one address (emulators on 127.0.0.1, a receiver and its TV): an
/// address alone is refused with their names, never resolved to one of them silently
/// (newcomer #12); a name, an id or HOST:PORT still finds one.
@Suite struct SharedAddressTests {
    let file = DeviceFile(devices: [
        DeviceRecord(id: "samsung-1", nickname: "bedroom", brand: "samsung", host: "127.0.0.1", port: 8002),
        DeviceRecord(id: "lg-1", nickname: "den", brand: "lg", host: "127.0.0.1", port: 3001),
        DeviceRecord(id: "roku-1", nickname: "kitchen", brand: "roku", host: "10.0.0.5", port: 8060),
    ])

    @Test func anAddressSharedBySeveralTVsIsRefusedWithTheirNames() throws {
        #expect(file.find("127.0.0.1") == nil)
        let refusal = try #require(file.ambiguity(of: "127.0.0.1"))
        #expect(refusal.code == .usage && refusal.message.contains("bedroom (samsung, port 8002)") && refusal.message.contains("den (lg, port 3001)"))
        #expect(refusal.hint?.contains("HOST:PORT") == true)
        #expect(file.ambiguity(of: "127.0.0.1:3001") == nil)
        #expect(file.ambiguity(of: "10.0.0.5") == nil && file.find("10.0.0.5")?.nickname == "kitchen")
        #expect(file.find("den")?.id == "lg-1" && file.find("samsung-1")?.nickname == "bedroom")
    }
}
