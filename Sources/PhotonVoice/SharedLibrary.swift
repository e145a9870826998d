import CAudioCapture
import PhotonCore

/// A C library opened at run time. Voice is the only feature that needs PulseAudio, ALSA
/// and PocketSphinx, and loading them costs every process that links them (they bring
/// D-Bus, systemd and libsndfile along), so they are opened only when a voice command
/// runs. A missing library is an `unsupported` error that names the package to install.
final class SharedLibrary: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    let name: String

    /// Opens the first of `names` that loads; `package` is the Debian package for the hint.
    init(_ names: [String], package: String, purpose: String) throws {
        var problems: [String] = []
        for name in names {
            if let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) {
                self.handle = handle
                self.name = name
                return
            }
            problems.append(dlerror().map { String(cString: $0) } ?? name)
        }
        throw PhotonError.unsupported(
            "\(purpose) needs \(names[0]), which this machine does not have (\(problems.joined(separator: "; ")))",
            hint: "install it: sudo apt install \(package)")
    }

    /// The address of `symbol`, or nil (for a C helper that calls it).
    func address(_ symbol: String) -> UnsafeMutableRawPointer? { dlsym(handle, symbol) }

    /// The function `symbol` as the C function type `T`.
    func function<T>(_ symbol: String, as type: T.Type = T.self) throws -> T {
        guard let address = dlsym(handle, symbol) else {
            throw PhotonError.unsupported(
                "\(name) has no \(symbol): an incompatible version", hint: "install the version your distribution ships")
        }
        return unsafeBitCast(address, to: T.self)
    }
}
