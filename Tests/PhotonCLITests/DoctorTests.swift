import Foundation
import PhotonCore
import PhotonStore
import PhotonTestSupport
import Testing

@testable import PhotonCLI

/// `photon doctor` through the `photon` binary against emulated TVs, and its redaction.
@Suite(.serialized) struct DoctorTests {
    func photon(_ home: URL, _ arguments: [String]) async throws -> TestProcess {
        // The mDNS step waits as long as --timeout allows (at most 2 s) for a TV that
        // these emulators never announce.
        let wait = arguments.first == "doctor" ? ["--timeout", "0.5"] : []
        let p = try TestProcess(try AndroidTVEndToEndTests.binary("photon"), arguments + wait + ["--home", home.path])
        p.closeStandardInput()
        _ = await p.waitForExit()
        return p
    }

    @Test func redactionMasksHostOctetsMACsAndPins() {
        let text = """
            192.168.1.23 and 10.0.0.7; AA:BB:CC:DD:EE:FF and 02-00-00-4c-47-01;
            pin 9F:86:D0:81:88:4C:7D:65:9A:2F:EA:A0:C5:5A:D0:15:A3:BF:4F:1B:2B:0B:82:2C:D1:5D:6C:15:B0:F0:0A:08
            and 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
            """
        let out = DoctorReport.redact(text)
        #expect(out.contains("192.168.1.***") && out.contains("10.0.0.***"))
        #expect(out.contains("AA:BB:CC:**:**:**") && out.contains("02-00-00:**:**:**"))
        #expect(out.components(separatedBy: "SHA256:9f86d081...[REDACTED]").count == 3)
        #expect(!out.contains("192.168.1.23") && !out.contains("DD:EE:FF") && !out.contains("884c7d65"))

        // IPv6 (EUI-64 embeds the MAC), compact and dotted MACs, ids, serials, paths, host.
        let more = """
            fe80::200:ff:fe4c:4701 and 2001:db8:1::4c47:1; androidtv-02000000aabb and 020000aabbcc;
            0200.00aa.bbcc; roku-yn00photon01 (serial YN00PHOTON01); /home/alice/.config/photon on kitchen-pi
            """
        let masked = DoctorReport.redact(more, hostName: "kitchen-pi.lan")
        for secret in ["4c47", "4701", "00aabb", "aabbcc", "00aa.bbcc", "yn00photon01", "YN00PHOTON01", "alice", "kitchen-pi"] {
            #expect(!masked.contains(secret), "\(secret) in \(masked)")
        }
        #expect(masked.contains("fe80:***:[v6]") && masked.contains("androidtv-020000******") && masked.contains("/home/***"))
        #expect(masked.contains("<this-host>"))
    }

    @Test func aHealthyTVPassesEveryStepAndTheReportHidesWhatIdentifiesTheHome() async throws {
        let emulator = try await EmulatorProcess.samsung()
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-doctor")
        let pair = try await photon(
            home,
            [
                "pair", "127.0.0.1:\(emulator.port)", "--rest-port", String(emulator.restPort), "--trust", emulator.fingerprint, "--name", "den",
            ])
        #expect(pair.process.terminationStatus == 0, "\(pair.standardError)")
        let doctor = try await photon(home, ["doctor", "den"])
        #expect(doctor.process.terminationStatus == 0, "\(doctor.standardOutput)\(doctor.standardError)")
        for step in 1...9 { #expect(doctor.standardOutput.contains(" \(step). "), "step \(step)") }
        #expect(doctor.standardOutput.contains("matches the pin"))
        #expect(doctor.standardOutput.contains("no key was sent"))
        // No key reached the TV.
        #expect(emulator.events("key").isEmpty)

        let token = try #require(await Store(paths: StorePaths(home: home)).secrets(for: "samsung-0200005a4d53")["token"])
        let report = try await photon(home, ["doctor", "den", "--report"])
        #expect(report.process.terminationStatus == 0)
        #expect(report.standardOutput.contains("photon doctor report"))
        #expect(report.standardOutput.contains("127.0.0.***") && !report.standardOutput.contains("127.0.0.1"))
        #expect(report.standardOutput.contains("02:00:00:**:**:**") && !report.standardOutput.contains("5A:4D:53"))
        #expect(report.standardOutput.contains("...[REDACTED]"))
        let fullPin = emulator.fingerprint.replacingOccurrences(of: ":", with: "").lowercased()
        for output in [report.standardOutput, doctor.standardOutput] {
            #expect(!output.contains(token))
            #expect(!output.lowercased().replacingOccurrences(of: ":", with: "").contains(fullPin) || output == doctor.standardOutput)
        }
        #expect(!report.standardOutput.lowercased().replacingOccurrences(of: ":", with: "").contains(fullPin))
        let json = try await photon(home, ["doctor", "den", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
        #expect(object?["exitCode"] as? Int == 0)
        #expect((object?["steps"] as? [[String: Any]])?.count == 9)
        #expect(!json.standardOutput.contains("127.0.0.1") && !json.standardOutput.contains(token))
    }

    /// An Apple TV has no TLS: its pin is its long-term key, which pair-verify checks on
    /// every connection, so the certificate step is skipped and doctor passes (it failed
    /// the step with a TLS timeout before).
    @Test func aHealthyAppleTVSkipsTheCertificateStepAndPasses() async throws {
        let emulator = try await EmulatorProcess.start(["appletv", "--port", "0", "--pin", "4826"])
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-doctor-appletv")
        let pair = try await AndroidTVEndToEndTests().finished(
            home, ["pair", "127.0.0.1:\(emulator.port)", "--brand", "appletv", "--name", "office"], input: "4826\n")
        #expect(pair.process.terminationStatus == 0, "\(pair.standardError)")
        let doctor = try await photon(home, ["doctor", "office"])
        #expect(doctor.process.terminationStatus == 0, "\(doctor.standardOutput)\(doctor.standardError)")
        #expect(doctor.standardOutput.contains("no TLS certificate") && doctor.standardOutput.contains("long-term key"), "\(doctor.standardOutput)")
        #expect(!doctor.standardOutput.contains("timed out"), "\(doctor.standardOutput)")
    }

    @Test func theExitCodeIsTheClassOfTheFirstFailedStep() async throws {
        let state = try TestEnvironment.temporaryDirectory("doctor-tv-state")
        var emulator = try await EmulatorProcess.samsung(["--state", state.path])
        let home = try await TestEnvironment.home("photon-doctor")
        let pair = try await photon(
            home,
            [
                "pair", "127.0.0.1:\(emulator.port)", "--rest-port", String(emulator.restPort), "--trust", emulator.fingerprint, "--name", "den",
            ])
        #expect(pair.process.terminationStatus == 0, "\(pair.standardError)")
        let ports = [String(emulator.port), String(emulator.restPort)]
        emulator.process.terminate()
        _ = await emulator.process.waitForExit()

        // Nothing listens: 3, at the ports step.
        let down = try await photon(home, ["doctor", "den"])
        #expect(down.process.terminationStatus == 3, "\(down.standardOutput)")
        #expect(down.standardOutput.contains("✗ 5. ports"))

        // The TV forgot its tokens and denies: 4, at the pairing step.
        try FileManager.default.removeItem(at: state.appendingPathComponent("tokens.txt"))
        emulator = try await EmulatorProcess.start([
            "samsung", "--state", state.path, "--port", ports[0], "--rest-port", ports[1], "--accept", "deny",
        ])
        let refused = try await photon(home, ["doctor", "den"])
        #expect(refused.process.terminationStatus == 4, "\(refused.standardOutput)")
        #expect(refused.standardOutput.contains("✗ 8. pairing"))
        emulator.process.terminate()
        _ = await emulator.process.waitForExit()

        // Another certificate: 5, at the TLS step, with the advice to pair again.
        let impostor = try await EmulatorProcess.start(["samsung", "--port", ports[0], "--rest-port", ports[1]])
        defer { impostor.process.terminate() }
        let pin = try await photon(home, ["doctor", "den"])
        #expect(pin.process.terminationStatus == 5, "\(pin.standardOutput)")
        #expect(pin.standardOutput.contains("✗ 6. TLS certificate") && pin.standardOutput.contains("--replace"))
        #expect(impostor.events("key").isEmpty)
    }

    @Test func aLoosePermissionIsAFailedStoreStep() async throws {
        let home = try await TestEnvironment.home("photon-doctor")
        let paths = StorePaths(home: home)
        _ = try await Store(paths: paths).clientIdentity()
        chmod(paths.dataDirectory.path, 0o755)
        let doctor = try await photon(home, ["doctor"])
        #expect(doctor.process.terminationStatus == 1)
        #expect(doctor.standardOutput.contains("✗ 1. store") && doctor.standardOutput.contains("chmod 700"))
    }

    /// A damaged devices.json is set aside and the store starts empty: doctor says so, and
    /// that secrets of TVs no longer paired are left (newcomer #27).
    @Test func aDamagedStoreFileIsNamedWithWhatItLeftBehind() async throws {
        let home = try await TestEnvironment.home("photon-doctor-corrupt")
        let paths = StorePaths(home: home)
        let store = Store(paths: paths)
        _ = try await store.clientIdentity()
        try await store.update { _, secrets in secrets.devices["roku-gone01"] = DeviceSecrets() }
        try Data("{ not json".utf8).write(to: paths.devicesFile)
        chmod(paths.devicesFile.path, 0o600)
        // The run that finds it damaged sets it aside and says where; every later run warns.
        let finding = try await photon(home, ["doctor"])
        #expect(finding.process.terminationStatus == 1 && finding.standardOutput.contains("it was kept as"), "\(finding.standardOutput)")
        let doctor = try await photon(home, ["doctor"])
        #expect(doctor.process.terminationStatus == 0, "\(doctor.standardOutput)")
        #expect(doctor.standardOutput.contains("! 1. store"), "\(doctor.standardOutput)")
        #expect(doctor.standardOutput.contains("devices.json.corrupt-"), "\(doctor.standardOutput)")
        #expect(doctor.standardOutput.contains("secrets of 1 TV no longer paired"), "\(doctor.standardOutput)")
        // The report for a bug tracker names no home directory.
        let report = try await photon(home, ["doctor", "--report"])
        #expect(!report.standardOutput.contains(NSHomeDirectory() + "/"), "\(report.standardOutput)")
    }

    /// An unpaired address typed with its port is checked at that port, not the brand's
    /// usual one (newcomer #27: an emulated Fire TV failed at adb 5555).
    @Test func aTypedPortIsTheOneChecked() async throws {
        let fireTV = try await EmulatorProcess.start(["firetv", "--port", "0"])
        defer { fireTV.process.terminate() }
        let home = try await TestEnvironment.home("photon-doctor-port")
        let doctor = try await photon(home, ["doctor", "127.0.0.1:\(fireTV.port)", "--brand", "firetv"])
        #expect(doctor.standardOutput.contains("✓ 5. ports: firetv: adb \(fireTV.port) open"), "\(doctor.standardOutput)")
        #expect(doctor.standardOutput.contains("✓ 7. protocol greeting"), "\(doctor.standardOutput)")
        #expect(doctor.standardOutput.contains("photon pair 127.0.0.1:\(fireTV.port)"), "\(doctor.standardOutput)")
    }
}
