import AndroidTVEmulator
import AppleTVEmulator
import FireTVEmulator
import LGWebOSEmulator
import PhilipsEmulator
import PhotonCore
import PhotonEmulatorSupport
import PhotonPlugins
import RokuEmulator
import SamsungTVEmulator
import SonyEmulator
import VizioEmulator

/// The emulated TVs built into `photon-emulator`, the benchmarks and the tests: one line
/// per brand, registered apart from the adapters so that `photon` and `photon-cli` carry
/// no emulator code.
public enum BuiltInEmulators {
    /// Every built-in emulated TV.
    public static let emulators: [any TVEmulator] = [
        AndroidTVEmulatorPlugin(),
        SamsungEmulatorPlugin(),
        RokuEmulatorPlugin(),
        LGEmulatorPlugin(),
        FireTVEmulatorPlugin(),
        AppleTVEmulatorPlugin(),
        SonyEmulatorPlugin(),
        VizioEmulatorPlugin(),
        PhilipsEmulatorPlugin(),
    ]

    /// Each built-in adapter with its emulated TV where it has one, in the adapters' order
    /// (the conformance suite and the tests iterate these).
    public static var all: [BrandPlugin] {
        BuiltInPlugins.adapterList.map { adapter in BrandPlugin(adapter, emulator: emulators.first { $0.brand == adapter.id }) }
    }
}
