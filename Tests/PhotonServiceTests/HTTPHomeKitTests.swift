import Foundation
import PhotonCore
import PhotonHAP
import PhotonStore
import Testing

@testable import PhotonService

/// The web remote's Apple Home section: `GET /api/v1/tvs/{tv}/homekit` gives the setup
/// code and its QR code while the daemon serves the TV in Apple Home and nobody is paired.
extension HTTPDoorTests {
    @Test func theHomeKitSetupCodeIsShownWhileServedAndUnpaired() async throws {
        let tv = try await Fixture()
        let token = try await tv.pairClient()
        let before = try await tv.request("GET", "/api/v1/tvs/tv/homekit", token: token)
        #expect(before.status == 200)
        #expect(before.json["homekit"]?["served"]?.boolValue == false, "no HomeKit door yet")
        var settings = HomeKitDoorSettings()
        settings.address = "127.0.0.1"
        settings.announces = false
        try await tv.server.startHomeKit(settings)
        let device = try await tv.store.device(named: "tv")
        let identity = try await tv.store.homeKitAccessory(for: device.id).identity
        let served = try await tv.request("GET", "/api/v1/tvs/tv/homekit", token: token)
        let homekit = try #require(served.json["homekit"])
        #expect(homekit["served"]?.boolValue == true)
        #expect(homekit["paired"]?.boolValue == false)
        #expect(homekit["setupCode"]?.stringValue == identity.setupCode.formatted)
        #expect(homekit["setupURI"]?.stringValue == identity.setupURI)
        #expect(homekit["qrSVG"]?.stringValue?.hasPrefix("<svg") == true)
        // Once a controller is paired the code is useless, and not shown.
        try await tv.store.updateHomeKitAccessory(for: device.id) { record in
            record.identity.pairings = [HAPPairing(id: "ADMIN", publicKey: [UInt8](repeating: 1, count: 32), isAdmin: true)]
        }
        let paired = try await tv.request("GET", "/api/v1/tvs/tv/homekit", token: token)
        #expect(paired.json["homekit"]?["paired"]?.boolValue == true)
        #expect(paired.json["homekit"]?["setupCode"] == nil)
        // Without a token, nothing.
        #expect(try await tv.request("GET", "/api/v1/tvs/tv/homekit").status == 401)
        await tv.stop()
    }
}
