import Foundation
import PhotonCore
import PhotonHAP
import PhotonNet
import PhotonTestSupport
import Testing

/// Photon's HomeKit accessory server over loopback TCP, driven by aiohomekit 4.0.1's IP
/// controller (Home Assistant's homekit_controller) by direct connect: pair-setup with the
/// code (a wrong one refused, a second pairing refused), pair-verify on every connection
/// (an impostor refused), the Television accessory listed, read, written and subscribed
/// to, and the pairings listed, added and removed.
@Suite(.serialized) struct HomeKitAccessoryTests {
    /// Records what the controller asked of the TV and what was stored.
    final class Television: HAPAccessoryDelegate {
        let requests = Locked<[HAPTelevision.Request]>([])
        let stored = Locked<[HAPAccessoryIdentity]>([])
        let lines = Locked<[String]>([])

        func perform(_ request: HAPTelevision.Request, controller: String) async -> HAPStatus {
            if case .input(let identifier) = request, identifier > 3 { return .invalidValue }
            requests.withLock { $0.append(request) }
            return .success
        }
        func store(_ identity: HAPAccessoryIdentity) async throws { stored.withLock { $0.append(identity) } }
        func log(_ line: String) { lines.withLock { $0.append(line) } }
    }

    /// A running accessory and aiohomekit's controller pointed at it.
    struct Rig {
        let server: HAPAccessoryServer
        let television: Television
        let listener: TCPListener
        let accepting: Task<Void, Never>
        let peer: HomeKitController

        init() throws {
            let identity = try HAPAccessoryIdentity.fresh(setupCode: try HAPSetupCode("518-08-582"))
            let model = HAPTelevision(
                name: "Living Room", manufacturer: "Photon", model: "Emulated", serialNumber: "0001",
                inputs: [
                    .init(identifier: 1, name: "HDMI 1", kind: 3), .init(identifier: 2, name: "HDMI 2", kind: 3),
                    .init(identifier: 3, name: "Netflix", kind: 8),
                ],
                hasVolumeLevel: true)
            let television = Television()
            let server = HAPAccessoryServer(identity: identity, accessory: model.accessory, delegate: television)
            let listener = try TCPListener(host: "127.0.0.1", port: 0)
            accepting = Task {
                await withTaskGroup(of: Void.self) { group in
                    while let stream = try? await listener.accept() { group.addTask { await server.serve(stream) } }
                    group.cancelAll()
                }
            }
            peer = try HomeKitController(port: listener.port, accessoryID: identity.deviceID)
            self.server = server
            self.television = television
            self.listener = listener
        }

        /// Sends one command and waits for its JSON line.
        func ask(_ command: String) async throws -> [String: Any] { try await peer.ask(command) }

        func stop() async {
            await peer.stop()
            listener.close()
            await accepting.value
        }
    }

    static func error(_ answer: [String: Any]) -> String { answer["error"] as? String ?? "" }

    @Test func aiohomekitPairsReadsWritesAndHearsEvents() async throws {
        let rig = try Rig()
        // A wrong code, then the right one; a second pair-setup while paired is refused.
        #expect(Self.error(try await rig.ask("pair 518-08-583")).hasPrefix("AuthenticationError"))
        #expect(try await rig.ask("pair 518-08-582")["paired"] as? Bool == true)
        let me = try #require(try await rig.ask("whoami")["id"] as? String)
        #expect(rig.server.identity.pairings.map(\.id) == [me])
        #expect(rig.television.stored.withLock { $0.last?.pairings.first?.isAdmin } == true)
        #expect(Self.error(try await rig.ask("again 518-08-582")).hasPrefix("UnavailableError"))
        #expect(!rig.television.lines.withLock { $0.joined() }.contains("518"), "the code is never logged")

        // The Television with its speaker and three inputs.
        let listed = try await rig.ask("accessories")
        let services = try #require(listed["services"] as? [String])
        #expect(services.filter { $0.hasPrefix("000000D9-") }.count == 3)
        #expect(services.contains("000000D8-0000-1000-8000-0026BB765291") && services.contains("00000113-0000-1000-8000-0026BB765291"))

        // Reads: values, a missing characteristic and a write-only one each get their status.
        let read = try await rig.ask("get 1.11,1.12,1.999,1.15")
        #expect((read["1.11"] as? [String: Any])?["value"] as? Int == 0)
        #expect((read["1.12"] as? [String: Any])?["value"] as? Int == 1)
        #expect((read["1.999"] as? [String: Any])?["status"] as? Int == -70409)
        #expect((read["1.15"] as? [String: Any])?["status"] as? Int == -70405)

        // Writes reach the TV as requests; bad ones are refused with HAP's codes.
        for write in ["1.11=1", "1.15=4", "1.12=2", "1.31=true", "1.34=0", "1.35=30"] {
            #expect(try await rig.ask("put \(write)").isEmpty, "\(write)")
        }
        #expect(
            rig.television.requests.withLock { $0 } == [
                .power(on: true), .remoteKey(4), .input(identifier: 2), .mute(true), .volumeStep(up: true), .volume(30),
            ])
        let refused = try await rig.ask("put 1.11=5 1.16=1 1.12=9")
        #expect((refused["1.11"] as? [String: Any])?["status"] as? Int == -70410)
        #expect((refused["1.16"] as? [String: Any])?["status"] as? Int == -70404)
        #expect((refused["1.12"] as? [String: Any])?["status"] as? Int == -70410)
        let after = try await rig.ask("get 1.11,1.12,1.31")
        #expect((after["1.11"] as? [String: Any])?["value"] as? Int == 1)
        #expect((after["1.12"] as? [String: Any])?["value"] as? Int == 2)

        // Events: what the TV reports reaches the subscriber; its own write does not echo.
        #expect(try await rig.ask("subscribe 1.11,1.12")["subscribed"] as? Bool == true)
        #expect(try await rig.ask("put 1.12=3").isEmpty)
        rig.server.update(HAPTelevision.IIDs.active, to: .int(0))
        rig.server.update(HAPTelevision.IIDs.activeIdentifier, to: .int(1))
        rig.server.update(HAPTelevision.IIDs.mute, to: .bool(true))
        let events = try #require(try await rig.ask("events 2 10")["events"] as? [[String: Int]])
        #expect(events == [["1.11": 0], ["1.12": 1]])

        // Pairings: listed, another controller added as a user and removed.
        #expect((try await rig.ask("pairings")["pairings"] as? [[String: Any]])?.count == 1)
        #expect(try await rig.ask("add 8E2A1C44-0000-4000-8000-00000000ABCD")["added"] as? Bool == true)
        let two = try #require(try await rig.ask("pairings")["pairings"] as? [[String: Any]])
        #expect(two.map { $0["admin"] as? Bool } == [true, false])
        #expect(try await rig.ask("remove 8E2A1C44-0000-4000-8000-00000000ABCD")["removed"] as? Bool == true)
        #expect(rig.server.identity.pairings.count == 1)

        // Every connection verifies again; another key under our id, or an unknown id, fails.
        #expect(try await rig.ask("reconnect")["verified"] as? Bool == true)
        #expect(!Self.error(try await rig.ask("impostor")).isEmpty)
        #expect(!Self.error(try await rig.ask("impostor unknown")).isEmpty)
        #expect(try await rig.ask("get 1.11")["1.11"] != nil)

        // Removing the last admin unpairs the accessory and cuts the session.
        #expect(try await rig.ask("remove \(me)")["removed"] as? Bool == true)
        #expect(!rig.server.identity.isPaired)
        #expect(!Self.error(try await rig.ask("get 1.11")).isEmpty, "the removed controller cannot come back")
        await rig.stop()
    }

    @Test func tooManyWrongCodesEndInMaxTries() async throws {
        let rig = try Rig()
        for _ in 0..<HAPAccessoryServer.maximumWrongCodes {
            #expect(Self.error(try await rig.ask("pair 518-08-583")).hasPrefix("AuthenticationError"))
        }
        #expect(Self.error(try await rig.ask("pair 518-08-582")).hasPrefix("MaxTriesError"))
        #expect(rig.television.lines.withLock { $0.filter { $0.contains("wrong setup code") }.count } == HAPAccessoryServer.maximumWrongCodes)
        await rig.stop()
    }

    @Test func identifyWorksOnlyWhileUnpaired() async throws {
        let rig = try Rig()
        #expect(try await rig.ask("identify")["identified"] as? Bool == true)
        #expect(rig.television.requests.withLock { $0 } == [.identify])
        #expect(try await rig.ask("pair 518-08-582")["paired"] as? Bool == true)
        #expect(!Self.error(try await rig.ask("identify")).isEmpty)
        await rig.stop()
    }
}
