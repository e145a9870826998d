import Foundation
import PhotonTestSupport
import Testing

/// On x86-64 photon-cli opens OpenSSL when a command first uses it (COpenSSLLoader), not
/// through the dynamic loader at start: a command that never uses it does not pay for it,
/// one that does works the same, and a missing or broken library is a clear error.
@Suite struct OpenSSLLoadingTests {
    #if arch(x86_64)
        @Test func photonCLIIsNotLinkedAgainstOpenSSLAndOpensItWhenACommandNeedsIt() async throws {
            let cli = try AndroidTVEndToEndTests.binary("photon-cli")
            let linked = try TestEnvironment.run("/usr/bin/ldd", [cli])
            #expect(linked.status == 0, "\(linked.output)")
            #expect(linked.output.contains("libc.so"), "\(linked.output)")
            #expect(!linked.output.contains("libssl") && !linked.output.contains("libcrypto"), "\(linked.output)")

            // The identity is made with OpenSSL (an RSA key and a self-signed certificate).
            let home = try await TestEnvironment.home("openssl-loading")
            let shown = try TestEnvironment.run(cli, ["identity", "show", "--home", home.path])
            #expect(shown.status == 0, "\(shown.output)")
            #expect(shown.output.contains("fingerprint"), "\(shown.output)")
        }

        @Test func anUnusableOpenSSLIsAClearErrorNotACrash() async throws {
            let cli = try AndroidTVEndToEndTests.binary("photon-cli")
            let home = try await TestEnvironment.home("openssl-unusable")
            let libraries = home.appendingPathComponent("lib")
            try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
            // What the loader finds first by that name is not a library.
            try Data("not a library".utf8).write(to: libraries.appendingPathComponent("libssl.so.3"))
            let broken = try TestEnvironment.run(
                cli, ["identity", "show", "--home", home.path], environment: ["LD_LIBRARY_PATH": libraries.path])
            #expect(broken.status == 70, "\(broken.output)")
            #expect(broken.output.contains("OpenSSL could not be loaded: cannot open libssl.so.3"), "\(broken.output)")
            #expect(broken.output.contains("hint: install OpenSSL"), "\(broken.output)")
            // A command that never uses OpenSSL does not notice.
            let version = try TestEnvironment.run(cli, ["--version"], environment: ["LD_LIBRARY_PATH": libraries.path])
            #expect(version.status == 0, "\(version.output)")
        }
    #endif
}
