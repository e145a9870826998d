import Foundation
import Glibc
import PhotonCore
import PhotonNet
import PhotonTestSupport
import Testing

/// The daemon's transport: Unix sockets with their mode and the peer's credentials.
@Suite struct UnixSocketTests {
    @Test func connectsWithMode0600AndSeesThePeer() async throws {
        let dir = try TestEnvironment.temporaryDirectory("photon-unix")
        let path = dir.appendingPathComponent("s.sock").path
        let listener = try UnixListener(path: path)
        var st = stat()
        #expect(lstat(path, &st) == 0)
        #expect(st.st_mode & S_IFMT == S_IFSOCK)
        #expect(st.st_mode & 0o777 == 0o600)

        async let accepted = listener.accept()
        let client = try await SocketStream.connect(unixPath: path, timeout: .seconds(2))
        let server = try await accepted
        #expect(server.peerCredentials?.uid == geteuid())
        #expect(server.peerCredentials?.pid == getpid())
        #expect(client.peerCredentials?.uid == geteuid())
        try await client.write(Array("ping\n".utf8), timeout: .seconds(2))
        #expect(try await server.read(maxLength: 100, timeout: .seconds(2)) == Array("ping\n".utf8))
        // The client's close waits for ours (graceful close), so both run at once.
        async let clientClosed: Void = client.close()
        #expect(try await server.read(maxLength: 100, timeout: .seconds(2)).isEmpty)
        await server.close()
        await clientClosed

        // A live socket is not replaced; closing removes the file.
        #expect(throws: PhotonError.self) { try UnixListener(path: path) }
        listener.close()
        #expect(access(path, F_OK) != 0)
    }

    @Test func aStaleSocketIsReplacedAndOtherFilesAreNot() async throws {
        let dir = try TestEnvironment.temporaryDirectory("photon-unix")
        let path = dir.appendingPathComponent("s.sock").path
        // A socket left behind by a process that died: bound, never listened.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(rc == 0)
        close(fd)
        let listener = try UnixListener(path: path)
        listener.close()

        let file = dir.appendingPathComponent("plain").path
        _ = FileManager.default.createFile(atPath: file, contents: Data("keep me".utf8))
        #expect(throws: PhotonError.self) { try UnixListener(path: file) }
        #expect(FileManager.default.contents(atPath: file) == Data("keep me".utf8))
    }

    @Test func clearErrorsForMissingAndOverlongPaths() async throws {
        do {
            _ = try await SocketStream.connect(unixPath: "/nonexistent/photon.sock", timeout: .seconds(1))
            Issue.record("connected to nothing")
        } catch let error as PhotonError {
            #expect(error.code == .unreachable)
            #expect(error.hint?.contains("photon serve") == true)
        }
        let long = "/tmp/" + String(repeating: "x", count: 120) + "/photon.sock"
        #expect(throws: PhotonError.self) { try UnixListener(path: long) }
        do {
            _ = try await SocketStream.connect(unixPath: long, timeout: .seconds(1))
        } catch let error as PhotonError {
            #expect(error.message.contains("longer than"))
        }
    }
}
