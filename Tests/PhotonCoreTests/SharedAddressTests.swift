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

/// A mistyped catalog name is refused with the name it is close to (newcomer #20:
/// `launch den netflx` went to the TV, which answered HTTP 404); ids and links pass.
@Suite struct LaunchNearMissTests {
    @Test func aNearMissIsRefusedWithTheNameAndIdsPass() throws {
        let ids: [String: [String]] = ["netflix": ["12"], "youtube": ["837"]]
        let refused = #expect(throws: PhotonError.self) { _ = try AppCatalog.launchTarget(for: "netflx", ids: ids, installed: nil) }
        #expect(refused?.code == .notFound && refused?.hint == "did you mean Netflix?", "\(String(describing: refused))")
        #expect(AppCatalog.nearMiss("youtub") == "YouTube")
        for id in ["12", "com.netflix.ninja", "https://www.youtube.com", "3:1", "tvinput.dtv", "Watch TV", "TED"] {
            #expect(try AppCatalog.launchTarget(for: id, ids: ids, installed: nil) == id, "\(id)")
        }
        #expect(try AppCatalog.launchTarget(for: "NetFlix", ids: ids, installed: nil) == "12")
    }
}
