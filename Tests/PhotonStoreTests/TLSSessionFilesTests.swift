import Foundation
import Glibc
import PhotonCore
import PhotonTestSupport
import Testing

@testable import PhotonStore

/// The TLS sessions kept between processes are secrets: private files under the store,
/// named only by their hex key, gone when a TV is forgotten or the identity regenerated.
@Suite struct TLSSessionFilesTests {
    let key = String(repeating: "ab", count: 32)

    func paths() throws -> StorePaths { StorePaths(home: try TestEnvironment.temporaryDirectory("photon-tls-sessions")) }

    func mode(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & 0o777 : 0
    }

    @Test func aSessionIsAPrivateFileReadBackAsWritten() throws {
        let files = TLSSessionFiles(paths: try paths())
        #expect(files.session(for: key) == nil)
        files.save([1, 2, 3], for: key)
        #expect(files.session(for: key) == [1, 2, 3])
        #expect(mode(files.directory.path) == 0o700)
        #expect(mode(files.directory.appendingPathComponent(key).path) == 0o600)
        files.save([4], for: key)
        #expect(files.session(for: key) == [4])
        files.removeSession(for: key)
        #expect(files.session(for: key) == nil)
    }

    @Test func onlyHexKeysBecomeFilesAndOnlyPrivateFilesAreRead() throws {
        let files = TLSSessionFiles(paths: try paths())
        for bad in ["../../secrets.json", "AB" + String(repeating: "a", count: 62), String(repeating: "a", count: 63), ""] {
            files.save([1], for: bad)
            #expect(files.session(for: bad) == nil)
        }
        #expect((try? FileManager.default.contentsOfDirectory(atPath: files.directory.path)) ?? [] == [])

        files.save([1, 2], for: key)
        let url = files.directory.appendingPathComponent(key)
        chmod(url.path, 0o644)
        #expect(files.session(for: key) == nil, "a session others could read was used")
    }

    @Test func forgettingATVOrRegeneratingTheIdentityDropsEverySession() async throws {
        let paths = try paths()
        let store = Store(paths: paths)
        let files = TLSSessionFiles(paths: paths)
        _ = try await store.clientIdentity()
        let paired = PairedTV(
            device: DeviceRecord(id: "roku-1", nickname: "tv", brand: "roku", host: "127.0.0.1", port: 8060),
            secrets: DeviceSecrets())
        try await store.save(paired)
        files.save([1], for: key)
        _ = try await store.forget("tv")
        #expect(files.session(for: key) == nil)

        try await store.save(paired)
        files.save([1], for: key)
        _ = try await store.regenerateIdentity()
        #expect(files.session(for: key) == nil)
    }
}
