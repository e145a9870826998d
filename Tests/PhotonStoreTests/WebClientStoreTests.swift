import Foundation
import PhotonCore
import PhotonTestSupport
import Testing

@testable import PhotonStore

/// Pairing codes and web client tokens: single use, five minutes, five wrong codes lock
/// pairing, tokens kept only as hashes, revocation.
@Suite struct WebClientStoreTests {
    func store() throws -> Store { Store(paths: StorePaths(home: try TestEnvironment.temporaryDirectory("photon-web-clients"))) }

    @Test func theRightCodePairsOnceAndTheTokenIsStoredOnlyAsAHash() async throws {
        let store = try store()
        let code = try await store.startWebPairing(name: nil)
        #expect(code.count == 9 && code.contains("-"))
        guard case .paired(let name, let token) = try await store.redeemWebPairing(code: code, deviceName: "phone") else {
            Issue.record("the right code did not pair")
            return
        }
        #expect(name == "phone")
        #expect(token.utf8.count == 43)
        let file = try String(contentsOf: store.paths.webClientsFile, encoding: .utf8)
        #expect(!file.contains(token))
        #expect(file.contains(Store.hash(token)))
        let mode = try FileManager.default.attributesOfItem(atPath: store.paths.webClientsFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Single use.
        #expect(try await store.redeemWebPairing(code: code, deviceName: "again") == .noPairingOpen)
    }

    /// Round 4, L7: a name a device chooses with bidirectional or C1 controls (which would
    /// print as another name in `photon web clients`) is not taken; it pairs as "device".
    @Test func aDeviceNameWithBidiOrC1ControlsIsNotTaken() async throws {
        let store = try store()
        for hostile in ["admin\u{202E}enohp", "phone\u{2066}x", "tab\u{85}let", "a\u{200F}b"] {
            let code = try await store.startWebPairing(name: nil)
            guard case .paired(let name, _) = try await store.redeemWebPairing(code: code, deviceName: hostile) else {
                Issue.record("did not pair")
                return
            }
            #expect(name.hasPrefix("device"), "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        await #expect(throws: PhotonError.self) { _ = try await store.startWebPairing(name: "kitchen\u{202E}") }
        #expect(throws: PhotonError.self) { try DeviceNaming.validateNickname("den\u{9B}2J") }
    }

    /// Round 4, L6 (and L5 on the loopback door, where the device is the local user): five
    /// wrong codes lock out the device that sent them, not the owner.
    @Test func fiveWrongCodesLockOutOnlyTheDeviceThatSentThem() async throws {
        let store = try store()
        let code = try await store.startWebPairing(name: "kitchen")
        let wrong = code == "0000-0000" ? "1111-1111" : "0000-0000"
        for left in (1...4).reversed() {
            #expect(try await store.redeemWebPairing(code: wrong, deviceName: nil, from: "192.0.2.66") == .wrongCode(attemptsLeft: left))
        }
        #expect(try await store.redeemWebPairing(code: wrong, deviceName: nil, from: "192.0.2.66") == .lockedForDevice)
        #expect(try await store.redeemWebPairing(code: code, deviceName: nil, from: "192.0.2.66") == .lockedForDevice)
        #expect(try await store.webClients().pairing?.isLocked == false)
        guard case .paired(let name, _) = try await store.redeemWebPairing(code: code, deviceName: "phone", from: "192.0.2.10") else {
            Issue.record("the owner's phone could not pair after another host's wrong codes")
            return
        }
        #expect(name == "kitchen")
    }

    @Test func fiftyWrongCodesFromAnyDevicesLockPairingUntilANewCode() async throws {
        let store = try store()
        let code = try await store.startWebPairing(name: "kitchen")
        let wrong = code == "0000-0000" ? "1111-1111" : "0000-0000"
        for attempt in 0..<(WebPairing.totalAttemptLimit - 1) {
            let outcome = try await store.redeemWebPairing(code: wrong, deviceName: nil, from: "host\(attempt / 4)")
            #expect(outcome == .wrongCode(attemptsLeft: WebPairing.attemptLimit - 1 - attempt % 4), "attempt \(attempt)")
        }
        #expect(try await store.redeemWebPairing(code: wrong, deviceName: nil, from: "last") == .locked)
        #expect(try await store.redeemWebPairing(code: code, deviceName: nil, from: "owner") == .locked)
        let fresh = try await store.startWebPairing(name: "kitchen")
        guard case .paired(let name, _) = try await store.redeemWebPairing(code: fresh.replacingOccurrences(of: "-", with: " "), deviceName: "x")
        else {
            Issue.record("a new code did not pair")
            return
        }
        #expect(name == "kitchen")
    }

    @Test func aCodeExpiresAfterFiveMinutes() async throws {
        let store = try store()
        let start = Date()
        let code = try await store.startWebPairing(name: nil, now: start)
        #expect(try await store.redeemWebPairing(code: code, deviceName: nil, now: start.addingTimeInterval(301)) == .expired)
        #expect(try await store.redeemWebPairing(code: code, deviceName: nil, now: start.addingTimeInterval(10)) == .noPairingOpen)
    }

    @Test func namesStayUniqueAndRevokingRemovesOne() async throws {
        let store = try store()
        for _ in 0..<2 {
            let code = try await store.startWebPairing(name: nil)
            _ = try await store.redeemWebPairing(code: code, deviceName: "phone")
        }
        #expect(try await store.webClients().clients.map(\.name) == ["phone", "phone-2"])
        #expect(try await store.revokeWebClient(named: "phone"))
        #expect(!(try await store.revokeWebClient(named: "phone")))
        #expect(try await store.webClients().clients.map(\.name) == ["phone-2"])
        let control = try await store.startWebPairing(name: nil)
        guard case .paired(let odd, _) = try await store.redeemWebPairing(code: control, deviceName: "bad\u{7}name") else { return }
        #expect(odd == "device")
    }

    @Test func theServerIdentityIsMadeOnceAndKept() async throws {
        let store = try store()
        let first = try await store.webServerIdentity(subjectAltNames: ["DNS:kitchen", "IP:192.168.1.5"])
        let second = try await store.webServerIdentity(subjectAltNames: [])
        #expect(first == second)
    }
}
