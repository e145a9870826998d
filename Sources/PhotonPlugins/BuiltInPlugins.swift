import AndroidTV
import AndroidTVEmulator
import AppleTV
import AppleTVEmulator
import FireTV
import FireTVEmulator
import LGWebOS
import LGWebOSEmulator
import PhotonCore
import PhotonEmulatorSupport
import Roku
import RokuEmulator
import SamsungTV
import SamsungTVEmulator

/// The brands built into Photon's tools: the one registration list. A brand is its
/// folders under Plugins/ (adapter and emulated TV) plus one line here; everything else —
/// the command line, the daemon, `photon-emulator`, `photon demo`, the conformance tests —
/// reads this list and names no brand.
public enum BuiltInPlugins {
    public static let all: [BrandPlugin] = [
        BrandPlugin(AndroidTVAdapter(), emulator: AndroidTVEmulatorPlugin()),
        BrandPlugin(SamsungTVAdapter(), emulator: SamsungEmulatorPlugin()),
        BrandPlugin(RokuAdapter(), emulator: RokuEmulatorPlugin()),
        BrandPlugin(LGWebOSAdapter(), emulator: LGEmulatorPlugin()),
        BrandPlugin(FireTVAdapter(), emulator: FireTVEmulatorPlugin()),
        BrandPlugin(AppleTVAdapter(), emulator: AppleTVEmulatorPlugin()),
    ]

    /// The adapters, for the CLI, the daemon and `PhotonKit`.
    public static var adapters: AdapterRegistry { AdapterRegistry(all.map(\.adapter)) }

    /// The emulated TVs, for `photon-emulator`, `photon demo` and tests.
    public static var emulators: [any TVEmulator] { all.compactMap(\.emulator) }
}
