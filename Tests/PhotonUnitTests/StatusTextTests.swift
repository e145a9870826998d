import PhotonCore
import Testing

@testable import PhotonCLI

/// What `photon status` prints for the power state: the TV's own word where it adds one,
/// never the state twice (newcomer finding #22).
@Suite struct StatusTextTests {
    @Test func aReasonThatRepeatsTheStateIsLeftOut() {
        #expect(StatusCommand.describe(.powerState(.standby, reason: "standby"))?.1 == "power state: standby")
        #expect(StatusCommand.describe(.powerState(.on, reason: "On"))?.1 == "power state: on")
        #expect(StatusCommand.describe(.powerState(.screenOff, reason: "DisplayOff"))?.1 == "power state: screen-off (DisplayOff)")
        #expect(StatusCommand.describe(.powerState(.art, reason: "art mode"))?.1 == "power state: art (art mode)")
        // The JSON keeps the TV's word as it was.
        #expect(StatusCommand.describe(.powerState(.standby, reason: "standby"))?.0["power_reason"]?.stringValue == "standby")
    }
}
