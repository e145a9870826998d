import Foundation
import PhotonTestSupport
import Testing

extension MQTTBridgeTests {
    /// A saved macro is a button on every TV (saving one with the daemon running
    /// republishes the configs); pressing it runs the macro in the daemon as the mqtt
    /// source, with one result; a macro whose step the broker may not send stops there.
    @Test func savedMacrosAreButtonsThatRunInTheDaemon() async throws {
        let site = try await labSite()
        defer { site.daemon.terminate() }
        let (emulator, home, ha, tv) = (site.emulator, site.home, site.ha, site.tv)
        let topic = "homeassistant/device/photon_lab_lg-1f2e3d4c5b6a/config"
        let file = home.appendingPathComponent("evening.txt")
        try "key home\nwait 200ms\nlaunch netflix\n".write(to: file, atomically: true, encoding: .utf8)
        let save = try TestProcess(try AndroidTVEndToEndTests.binary("photon"), ["macro", "save", "evening", "-f", file.path, "--home", home.path])
        save.closeStandardInput()
        #expect(await save.waitForExit() == 0, "\(save.standardError)")
        try await ha.wait("the macro button in the config") { ha.payloads(topic).last?.contains("macro_evening") == true }
        let config = try #require(try JSONSerialization.jsonObject(with: Data(ha.payloads(topic).last!.utf8)) as? [String: Any])
        let button = try #require((config["cmps"] as? [String: [String: Any]])?["macro_evening"])
        #expect(button["p"] as? String == "button" && button["pl_prs"] as? String == "evening")
        #expect(button["cmd_t"] as? String == "\(tv)/macro/set")

        try await ha.publish("\(tv)/macro/set", "evening")
        try await ha.wait("the macro's result") { !ha.payloads("\(tv)/result").isEmpty }
        #expect(ha.payloads("\(tv)/result").last?.contains(#""ok":true"#) == true, "\(ha.payloads("\(tv)/result"))")
        #expect(keys(emulator) == ["HOME"])
        #expect(emulator.events("launch").compactMap { $0["app"] as? String } == ["netflix"])
        // An unknown macro, and one with a step the broker may not send (a link).
        try "key up\nlaunch https://example.com\nkey down\n".write(to: file, atomically: true, encoding: .utf8)
        let link = try TestProcess(try AndroidTVEndToEndTests.binary("photon"), ["macro", "save", "linky", "-f", file.path, "--home", home.path])
        link.closeStandardInput()
        #expect(await link.waitForExit() == 0)
        try await ha.publish("\(tv)/macro/set", "nothing")
        try await ha.publish("\(tv)/macro/set", "linky")
        try await ha.wait("two more results") { ha.payloads("\(tv)/result").count == 3 }
        let results = ha.payloads("\(tv)/result")
        #expect(results[1].contains("no macro named"), "\(results[1])")
        #expect(results[2].contains("step 2") && results[2].contains(#""ok":false"#), "\(results[2])")
        try await Task.sleep(for: .milliseconds(200))
        #expect(keys(emulator) == ["HOME", "UP"])
    }
}
