import Foundation
import PhotonCLI
import PhotonCore
import PhotonStore
import PhotonTestSupport
import Testing

/// Commands run in-process against a temporary home.
@Suite struct CommandTests {
    struct Run {
        let status: Int32
        let out: String
        let err: String
    }

    let home: URL

    init() async throws { home = try await TestEnvironment.home("photon-cli") }

    func photon(_ arguments: String...) async -> Run { await photon(in: home, arguments) }

    func photon(in home: URL, _ arguments: [String]) async -> Run {
        let terminal = CapturingTerminal()
        let status = await PhotonCommandLine.run(
            arguments + ["--home", home.path], terminal: terminal, environment: ["HOME": "/nonexistent"])
        return Run(status: status, out: terminal.output, err: terminal.errors)
    }

    func seed(_ count: Int) async throws {
        let store = Store(paths: StorePaths(home: home))
        for n in 0..<count {
            try await store.save(
                PairedTV(
                    device: DeviceRecord(
                        id: "samsung-\(n)", nickname: "tv-\(n)", brand: n % 2 == 0 ? "samsung" : "androidtv",
                        host: "127.0.0.1", port: 8002, name: "Room \(n) \u{1B}[2J"),
                    secrets: DeviceSecrets(values: ["token": "SECRET-TOKEN-\(n)"])))
        }
    }

    @Test func identityShowMakesThenReusesAndRegenerateReplaces() async throws {
        // A home without an identity yet (the suite's `home` already holds one).
        let fresh = try TestEnvironment.temporaryDirectory("photon-cli-fresh")
        func photon(_ arguments: String...) async -> Run { await self.photon(in: fresh, arguments) }
        let first = await photon("identity", "show", "--json")
        #expect(first.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(first.out.utf8)) as? [String: Any]
        let fingerprint = try #require(object?["fingerprint"] as? String)
        #expect(fingerprint.count == 95)
        #expect(object?["new"] as? Bool == true)
        let second = await photon("identity", "show")
        #expect(second.out.contains(fingerprint))
        #expect(!second.out.contains("(new)"))
        #expect(!second.out.contains("PRIVATE KEY"))
        let regenerated = await photon("identity", "regenerate", "--json")
        #expect(regenerated.status == 0)
        #expect(!regenerated.out.contains(fingerprint))
    }

    @Test func listShowsSanitizedNamesAndNoSecrets() async throws {
        try await seed(3)
        let human = await photon("list")
        #expect(human.status == 0)
        #expect(human.out.contains("NICKNAME"))
        #expect(human.out.contains("tv-2"))
        #expect(!human.out.contains("\u{1B}"))
        #expect(!human.out.contains("SECRET-TOKEN"))
        let json = await photon("list", "--json")
        let lines = json.out.split(separator: "\n")
        #expect(lines.count == 3)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["brand"] != nil)
            #expect(object?["host"] as? String == "127.0.0.1")
        }
        #expect(!json.out.contains("SECRET-TOKEN"))
    }

    @Test func emptyListIsQuietOnStdout() async {
        let run = await photon("list")
        #expect(run.status == 0)
        #expect(run.out.isEmpty)
        #expect(run.err.contains("No paired TVs"))
    }

    @Test func forgetRemovesTheSecretsToo() async throws {
        try await seed(2)
        let run = await photon("forget", "tv-1")
        #expect(run.status == 0)
        #expect(run.out.contains("Forgot tv-1"))
        let secrets = try String(contentsOf: StorePaths(home: home).secretsFile, encoding: .utf8)
        #expect(!secrets.contains("SECRET-TOKEN-1"))
        #expect(secrets.contains("SECRET-TOKEN-0"))
        let again = await photon("forget", "tv-1", "--json")
        #expect(again.status == 1)
        #expect(again.out.contains(#""code":"not_found""#))
        #expect(again.err.contains("photon: error: no paired TV is called 'tv-1'"))
        #expect(again.err.contains("  hint: "))
    }

    @Test func renameChangesTheNickname() async throws {
        try await seed(1)
        #expect(await photon("rename", "tv-0", "kitchen").status == 0)
        #expect(await photon("list").out.contains("kitchen"))
        #expect(await photon("rename", "tv-0", "x").status == 1)
    }

    @Test func remoteAndDoctorAreReal() async {
        // In-process there is no terminal: a usage error that says what to do instead.
        let run = await photon("remote", "living-room", "--timeout", "1")
        #expect(run.status == 2)
        #expect(run.err.contains("needs a terminal") && run.err.contains("photon key"))
        // Without a TV, the store and daemon steps only.
        let doctor = await photon("doctor")
        #expect(doctor.status == 0, "\(doctor.out)\(doctor.err)")
        #expect(doctor.out.contains("1. store") && doctor.out.contains("2. daemon"))
        let help = await photon("doctor", "--help")
        #expect(help.status == 0 && !help.out.contains("Not in this build yet"))
        #expect(!(await photon("--help")).out.contains("Planned, not in this build"))
    }

    @Test func badTimeoutIsAUsageError() async {
        #expect(await photon("list", "--timeout", "0").status == 2)
        #expect(await photon("list", "--timeout", "abc").status == 2)
        #expect(await photon("list", "--timeout", "2.5").status == 0)
    }

    @Test func storeErrorsReachTheUser() async throws {
        try await seed(1)
        let devices = StorePaths(home: home).devicesFile
        try Data("{\"schemaVersion\":1,\"devi".utf8).write(to: devices)
        chmod(devices.path, 0o600)
        let run = await photon("list")
        #expect(run.status == 1)
        #expect(run.err.contains("devices.json is damaged"))
        #expect(run.err.contains("kept as"))
    }

    @Test func keysListsEveryBrandNeutralName() async throws {
        let run = await photon("keys", "--json")
        #expect(run.out.split(separator: "\n").count == RemoteKey.allCases.count)
        #expect(await photon("keys", "--brand", "nope").status == 2)
    }

    @Test func verboseLogNeverShowsSecrets() async throws {
        try await seed(1)
        let run = await photon("-v", "identity", "show")
        #expect(!run.err.contains("PRIVATE KEY"))
        #expect(!run.out.contains("SECRET-TOKEN"))
    }

    /// `photon help [COMMAND...]` and `photon version`, as newcomers type them.
    @Test func helpAndVersionAreCommandsToo() async throws {
        let overview = await photon("help")
        #expect(overview.status == 0 && overview.out.contains("volume") && overview.out.contains("sound"), "\(overview.out)")
        let volume = await photon("help", "volume")
        #expect(volume.status == 0 && volume.out.contains("Usage: photon volume TV up|down|mute|LEVEL"), "\(volume.out)")
        #expect(await photon("help", "web", "pair").out.contains("photon web pair"))
        // The manual page from a checkout (newcomer #18): roff, with every command.
        let man = await photon("help", "--man").out
        #expect(man.contains("\n.TH PHOTON 1 "), "\(man.prefix(200))")
        #expect(man.contains("web pair"))
        let unknown = await photon("help", "warp")
        #expect(unknown.status == 2, "\(unknown.err)")
        let version = await photon("version")
        #expect(version.status == 0 && version.out == "photon \(PhotonCommandLine.version)\n")
        #expect(await photon("version", "--json").out.contains(#""version":"#))
    }

    @Test func demoRunsInATemporaryHome() async throws {
        let home = try TestEnvironment.temporaryDirectory("photon-cli-demo")
        let run = await photon(in: home, ["demo"])
        #expect(run.status == 0)
        #expect(run.out.contains("fingerprint"))
        #expect(run.out.contains("600"))
        // The demo never touches the user's home.
        #expect(!FileManager.default.fileExists(atPath: StorePaths(home: home).secretsFile.path))
    }

    /// `photon apps --catalog`: every catalog app, a column per brand; `--json` with every id.
    @Test func theAppCatalogListsEveryAppAndBrand() async throws {
        let table = await photon("apps", "--catalog")
        #expect(table.status == 0)
        #expect(table.out.contains("APP") && table.out.contains("androidtv") && table.out.contains("roku"))
        for name in ["Netflix", "YouTube", "Prime Video", "Disney+", "Max", "Hulu", "Plex", "Spotify", "Apple TV", "Twitch", "Kodi"] {
            #expect(table.out.contains(name), "\(name)")
        }
        let json = await photon("apps", "--catalog", "--json")
        #expect(json.out.contains(#""key":"netflix""#) && json.out.contains(#""roku":["12"]"#), "\(json.out)")
        #expect(await photon("apps").status == 2)
        #expect(await photon("apps", "tv", "--catalog").status == 2)
    }
}
